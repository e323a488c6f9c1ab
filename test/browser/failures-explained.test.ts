import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PhoneSimulator } from '../../src/simulator/index.js';
import { pairedPhone, setupOwner } from '../console/support.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { WebhookReceiver } from '../helpers/phones.js';
import { consoleContext, launchBrowser, screenshot, skipBrowser } from './support.js';

declare const document: { documentElement: { clientWidth: number; scrollWidth: number } };

const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 840 },
  { name: 'phone', width: 390, height: 844 },
] as const;

/**
 * Issue 26, points 3 and 2 in the browser: webhook failures that say why, and a failed hand-off to
 * the assistant in plain words. Each check runs at a desktop size and on a phone held upright.
 */
describe.skipIf(skipBrowser)('failures that explain themselves', () => {
  let g: TestGateway;
  let browser: Browser;
  let context: BrowserContext;
  let receiver: WebhookReceiver;
  let phone: PhoneSimulator;
  const errors: string[] = [];

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    [g, browser] = await Promise.all([startTestGateway({ env: { WEBHOOK_URL: receiver.url, WEBHOOK_RETRY_DELAYS: '20ms,20ms,20ms' } }), launchBrowser()]);
    context = await consoleContext(browser);
    const [name, value] = (await setupOwner(g)).split('=') as [string, string];
    await context.addCookies([{ name, value, url: g.url }]);
    phone = await pairedPhone(g);
  }, 30_000);

  afterAll(async () => {
    await phone?.stop();
    await browser?.close();
    await g?.stop();
    await receiver?.close();
  });

  async function atEachSize(check: (page: Page, size: (typeof VIEWPORTS)[number]) => Promise<void>): Promise<void> {
    for (const size of VIEWPORTS) {
      const touch = size.name === 'phone';
      const sized = await browser.newContext({ viewport: { width: size.width, height: size.height }, hasTouch: touch, isMobile: touch, locale: 'en-GB', timezoneId: 'Europe/Berlin' });
      sized.setDefaultTimeout(8000);
      await sized.addCookies(await context.cookies());
      const page = await sized.newPage();
      page.on('pageerror', (err) => errors.push(`${size.name}: ${err.message}`));
      try {
        await check(page, size);
      } catch (err) {
        throw new Error(`at ${size.name} (${size.width} px): ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      } finally {
        await sized.close();
      }
    }
  }

  it('shows one row per webhook event with the reason of each attempt, "gave up after 4 of 4" and one Retry', async () => {
    receiver.failNext(4, 502);
    receiver.failAnswer = () => 'upstream database unavailable';
    const callId = await phone.ringIncoming('+4930777001');
    await expect
      .poll(async () => (await g.api<{ events: Array<{ callId: string; event: string; state: string }> }>('GET', `/v1/webhook-deliveries?callId=${callId}`)).body.events.find((e) => e.event === 'call.ringing')?.state, { timeout: 10_000 })
      .toBe('gave_up');
    phone.remoteHangup();

    let round = 0;
    await atEachSize(async (page, size) => {
      await page.goto(`${g.url}/webhooks?callId=${callId}`);
      const row = page.locator('tbody tr[data-state]').filter({ hasText: 'Ringing' });
      await row.first().waitFor();
      // One row for the event, its four attempts inside, each saying why.
      expect(await row.count()).toBe(1);
      const attempts = row.locator('li[data-delivery-id]');
      await expect.poll(() => attempts.count()).toBe(round === 0 ? 4 : 5);
      expect(await attempts.nth(3).textContent()).toContain('Gave up after 4 of 4');
      if (round === 0) expect(await row.locator('.badge').textContent()).toBe('Gave up after 4 of 4');
      else expect(await row.locator('.badge').textContent()).toBe('Delivered');
      expect(await attempts.first().textContent()).toContain('The receiver answered HTTP 502');
      expect(await attempts.first().textContent()).toContain('upstream database unavailable');
      expect(await attempts.first().textContent()).toMatch(/Next attempt due at \d\d:\d\d:\d\d/);
      expect(await attempts.first().textContent()).toMatch(/\d+ ms/);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(size.width);
      await screenshot(page, size.name === 'phone' ? 'mobile-webhooks' : 'webhooks', { fullPage: true });
      if (round === 0) {
        // One Retry per event; the attempts it makes name an attempt the row shows.
        expect(await row.getByRole('button', { name: /^Retry/ }).count()).toBe(1);
        await row.getByRole('button', { name: /^Retry/ }).click();
        await row.getByText('✓ Sent again').waitFor();
        await expect.poll(() => attempts.count(), { timeout: 10_000 }).toBe(5);
        const from = (await attempts.last().textContent())?.match(/sent again from #(\d+)/)?.[1];
        expect(from).toBeDefined();
        expect(await row.locator(`li[data-delivery-id="${from}"]`).count()).toBe(1);
      }
      round += 1;
    });
  });

  it('left no uncaught errors in the pages', () => {
    expect(errors).toEqual([]);
  });
});
