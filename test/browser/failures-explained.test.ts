import { createServer, type AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PhoneSimulator } from '../../src/simulator/index.js';
import { pairedPhone, setupOwner } from '../console/support.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { WebhookReceiver } from '../helpers/phones.js';
import { consoleContext, launchBrowser, screenshot, skipBrowser } from './support.js';

/** A loopback port nothing listens on: connecting to it is refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

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

  /** Where the voice model is said to be: a loopback port nothing listens on. */
  let modelPort: number;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    modelPort = await closedPort();
    const env = {
      WEBHOOK_URL: receiver.url,
      WEBHOOK_RETRY_DELAYS: '20ms,20ms,20ms',
      ASSISTANT_REALTIME_URL: `ws://127.0.0.1:${modelPort}/v1/realtime`,
      ASSISTANT_API_KEY: 'sk-browser-test-0123456789abcdef',
    };
    [g, browser] = await Promise.all([startTestGateway({ env }), launchBrowser()]);
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

  it('says in plain words that the assistant could not reach the voice model: on the call, on its timeline, and from "Test the connection"', async () => {
    const plain = `The assistant could not reach the voice model at 127.0.0.1:${modelPort}: the connection was refused`;
    await atEachSize(async (page, size) => {
      await page.goto(`${g.url}/assistant`);
      await page.getByRole('button', { name: 'Test the connection' }).click();
      const result = page.locator('.connection-result');
      await result.waitFor();
      expect(await result.getAttribute('data-ok')).toBe('false');
      expect(await result.textContent()).toContain(plain);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(size.width);
      await screenshot(page, size.name === 'phone' ? 'mobile-assistant-test' : 'assistant-test');

      const callId = await phone.ringIncoming(`+49307770${size.width}`);
      await page.goto(`${g.url}/calls/${callId}`);
      const card = page.locator('section', { has: page.getByRole('heading', { name: 'Assistant', exact: true }) });
      await card.getByRole('button', { name: 'Hand to assistant' }).click();
      await card.getByTestId('assistant-error').waitFor();
      expect(await card.getByTestId('assistant-error').textContent()).toBe(plain);
      expect(await card.textContent()).not.toContain('ECONNREFUSED');
      // The call's true state: still ringing, for a person to answer.
      expect(await card.textContent()).toContain('The assistant could not take this call; it is still ringing.');
      await card.getByTestId('assistant-next-step').getByRole('link', { name: 'Test the connection' }).waitFor();
      expect(await page.locator('.call-page').getAttribute('data-state')).toBe('ringing');
      expect(await page.getByText('No transcript: the assistant could not join this call.').count()).toBe(1);
      const entry = page.locator('ol.timeline li', { hasText: 'The assistant could not join' });
      await entry.waitFor();
      expect(await entry.textContent()).toContain('recorded by the gateway, not a phone event');
      expect(await entry.textContent()).toContain('the connection was refused');
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(size.width);
      await screenshot(page, size.name === 'phone' ? 'mobile-assistant-failed' : 'assistant-failed', { fullPage: true });
      phone.remoteHangup();
      await expect.poll(async () => (await g.api<{ call: { state: string } }>('GET', `/v1/calls/${callId}`)).body.call.state).toBe('ended');
    });
  });

  it('left no uncaught errors in the pages', () => {
    expect(errors).toEqual([]);
  });
});
