import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PhoneSimulator } from '../../src/simulator/index.js';
import { pairedPhone, setupOwner } from '../console/support.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { consoleContext, launchBrowser, skipBrowser } from './support.js';

// What the page.evaluate callbacks touch in the browser (this project's types are Node's, not the DOM's).
declare const document: { documentElement: { clientWidth: number; scrollWidth: number } };

/**
 * Runs in the page: every visible element that reaches past the viewport's right edge, or is wider
 * than it, named by tag and class. Content inside a box that scrolls sideways on purpose (a code
 * block) is that box's business, not the page's.
 */
const WIDER_THAN_VIEWPORT = `(() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    let clipped = false;
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      const o = getComputedStyle(a).overflowX;
      if (o === 'auto' || o === 'scroll' || o === 'hidden' || o === 'clip') { clipped = true; break; }
    }
    if (clipped) continue;
    if (r.right > width + 0.5 || r.width > width + 0.5) out.push(el.tagName.toLowerCase() + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\\s+/).join('.') : '') + ' ' + Math.round(r.right) + 'px');
  }
  return out.slice(0, 10);
})()`;

/** Every point is checked where an operator meets it: a desktop window and a phone held upright. */
const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 840 },
  { name: 'phone', width: 390, height: 844 },
] as const;

/**
 * Issue 26 in the browser: the console on day two, when things go wrong and on a phone-sized screen.
 * The tests run in order and share one gateway; each runs its check at both sizes.
 */
describe.skipIf(skipBrowser)('the console on day two', () => {
  let g: TestGateway;
  let browser: Browser;
  let context: BrowserContext;
  const errors: string[] = [];
  let phone: PhoneSimulator;

  beforeAll(async () => {
    [g, browser] = await Promise.all([startTestGateway({ timings: { pingIntervalMs: 1000 } }), launchBrowser()]);
    context = await consoleContext(browser);
  }, 30_000);

  afterAll(async () => {
    await phone?.stop();
    await browser?.close();
    await g?.stop();
  });

  /** Runs `check` in a fresh page at each size; the phone-sized one is a touch screen, signed in as the shared context is. */
  async function atEachSize(check: (page: Page, size: (typeof VIEWPORTS)[number]) => Promise<void>, init?: string): Promise<void> {
    for (const size of VIEWPORTS) {
      const touch = size.name === 'phone';
      const sized = await browser.newContext({ viewport: { width: size.width, height: size.height }, hasTouch: touch, isMobile: touch, locale: 'en-GB', timezoneId: 'Europe/Berlin' });
      sized.setDefaultTimeout(8000);
      await sized.addCookies(await context.cookies());
      if (init) await sized.addInitScript({ content: init });
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

  const widerThanViewport = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

  it('9. keeps the first-run page\'s help on where the token is after an empty submit', async () => {
    await atEachSize(async (page) => {
      await page.goto(`${g.url}/`);
      await page.getByRole('heading', { name: 'Welcome' }).waitFor();
      await page.getByRole('button', { name: 'Create owner account' }).click();
      const field = page.locator('.field', { hasText: 'Setup token' });
      await field.getByRole('alert').waitFor();
      expect(await field.textContent()).toContain('DATA_DIR/setup-token');
      expect(await page.getByLabel('Setup token').getAttribute('aria-invalid')).toBe('true');
      const described = (await page.getByLabel('Setup token').getAttribute('aria-describedby')) ?? '';
      expect(described.split(' ')).toHaveLength(2);
    });
    const cookie = await setupOwner(g);
    const [name, value] = cookie.split('=') as [string, string];
    await context.addCookies([{ name, value, url: g.url }]);
  });

  it('1. says how to unblock notifications, inside the card, at every width', async () => {
    const denied = `Object.defineProperty(window.Notification, 'permission', { get: () => 'denied' });`;
    await atEachSize(async (page, size) => {
      await page.goto(`${g.url}/settings`);
      const card = page.locator('section', { has: page.getByRole('heading', { name: 'This browser' }) });
      await card.getByTestId('unblock-notifications').waitFor();
      expect(await card.getByTestId('unblock-notifications').textContent()).toMatch(/set Notifications to Allow/);
      const cardBox = (await card.boundingBox())!;
      const badgeBox = (await card.locator('.badge').boundingBox())!;
      expect(badgeBox.x + badgeBox.width).toBeLessThanOrEqual(cardBox.x + cardBox.width);
      expect(cardBox.x + cardBox.width).toBeLessThanOrEqual(size.width);
      expect(await widerThanViewport(page)).toBe(0);
    }, denied);
  });

  it('8. names one thing one way: "On hold" on the timeline, "Hung up here" for the end, and a Call back', async () => {
    phone = await pairedPhone(g, { name: 'Pixel 8', dial: { outcome: 'manual' } });
    const placed = await g.api<{ call: { id: string } }>('POST', '/v1/calls', { deviceId: phone.deviceId, to: '+49 151 2345678' });
    const callId = placed.body.call.id;
    await expect.poll(async () => (await g.api<{ call: { state: string } }>('GET', `/v1/calls/${callId}`)).body.call.state).toBe('dialing');
    phone.remoteAnswer();
    await expect.poll(async () => (await g.api<{ call: { state: string } }>('GET', `/v1/calls/${callId}`)).body.call.state).toBe('active');
    await g.api('POST', `/v1/calls/${callId}/hold`);
    await expect.poll(async () => (await g.api<{ call: { state: string } }>('GET', `/v1/calls/${callId}`)).body.call.state).toBe('held');
    await g.api('POST', `/v1/calls/${callId}/hangup`);
    await expect.poll(async () => (await g.api<{ call: { state: string } }>('GET', `/v1/calls/${callId}`)).body.call.state).toBe('ended');

    await atEachSize(async (page) => {
      await page.goto(`${g.url}/calls/${callId}`);
      await page.locator('.call-page[data-state="ended"]').waitFor();
      const timeline = page.locator('.timeline');
      await timeline.locator('li', { hasText: 'On hold' }).waitFor();
      expect(await timeline.textContent()).not.toContain('Holding');
      await timeline.locator('li', { hasText: 'Hung up here' }).waitFor();
      expect(await timeline.textContent()).not.toContain('cause: local');
      await page.getByRole('link', { name: /^Call back \+49/ }).click();
      await page.getByRole('heading', { name: 'Dialer', level: 1 }).waitFor();
      expect((await page.getByLabel('Number').inputValue()).replace(/ /g, '')).toBe('+491512345678');
    });
  });

  it('10. puts live audio above the keypad on the call page', async () => {
    const placed = await g.api<{ call: { id: string } }>('POST', '/v1/calls', { deviceId: phone.deviceId, to: '+49 151 7654321' });
    const callId = placed.body.call.id;
    await expect.poll(async () => (await g.api<{ call: { state: string } }>('GET', `/v1/calls/${callId}`)).body.call.state).toBe('dialing');
    phone.remoteAnswer();
    await atEachSize(async (page) => {
      await page.goto(`${g.url}/calls/${callId}`);
      await page.locator('.call-page[data-state="active"]').waitFor();
      const audio = (await page.getByRole('heading', { name: 'Live audio', level: 2 }).boundingBox())!;
      const keypad = (await page.getByRole('heading', { name: 'Keypad', level: 2 }).boundingBox())!;
      expect(audio.y).toBeLessThan(keypad.y);
    });
    await g.api('POST', `/v1/calls/${callId}/hangup`);
  });

  it('6. keeps a removed phone\'s name in the call log and on its calls', async () => {
    const moto = await pairedPhone(g, { name: 'Moto G', dial: { outcome: 'busy', ringMs: 20 } });
    const placed = await g.api<{ call: { id: string } }>('POST', '/v1/calls', { deviceId: moto.deviceId, to: '+44 20 7946 0958' });
    const callId = placed.body.call.id;
    await expect.poll(async () => (await g.api<{ call: { state: string } }>('GET', `/v1/calls/${callId}`)).body.call.state).toBe('ended');
    await moto.stop();
    expect((await g.api('DELETE', `/v1/devices/${moto.deviceId}`)).status).toBe(204);
    expect((await g.api<{ call: { deviceName?: string } }>('GET', `/v1/calls/${callId}`)).body.call.deviceName).toBe('Moto G');
    await atEachSize(async (page) => {
      await page.goto(`${g.url}/calls`);
      const row = page.locator(`tr[data-call-id="${callId}"]`);
      await row.waitFor();
      expect(await row.textContent()).toContain('Moto G (removed)');
      expect(await row.textContent()).not.toContain(moto.deviceId!);
      await page.goto(`${g.url}/calls/${callId}`);
      await page.getByText('Outgoing call on Moto G (removed)').waitFor();
    });
  });

  it('4. on a phone: filters folded behind one button, the ringing toast above the list, no keyboard hints on a touch screen', async () => {
    await atEachSize(async (page, size) => {
      await page.goto(`${g.url}/calls`);
      const firstRow = page.locator('tbody tr').first();
      await firstRow.waitFor();
      const toggle = page.getByRole('button', { name: 'Filters', exact: true });
      const state = page.getByLabel('State');
      if (size.name === 'phone') {
        expect(await state.isVisible()).toBe(false);
        expect((await firstRow.boundingBox())!.y).toBeLessThan(size.height / 2);
        await toggle.click();
        await state.waitFor();
        expect(await page.getByRole('button', { name: 'Hide filters' }).getAttribute('aria-expanded')).toBe('true');
        await page.getByRole('button', { name: 'Hide filters' }).click();
      } else {
        expect(await toggle.isVisible()).toBe(false);
        expect(await state.isVisible()).toBe(true);
      }
    });
    const callId = await phone.ringIncoming('+33 1 23 45 67 89');
    await atEachSize(async (page, size) => {
      await page.goto(`${g.url}/calls`);
      await page.locator('tbody tr').first().waitFor();
      const toast = page.getByRole('region', { name: /Incoming call from \+33/ });
      await toast.waitFor();
      const t = (await toast.boundingBox())!;
      for (const row of await page.locator('tbody tr').all()) {
        const r = (await row.boundingBox())!;
        const overlaps = t.x < r.x + r.width && r.x < t.x + t.width && t.y < r.y + r.height && r.y < t.y + t.height;
        expect(overlaps, `the toast covers the row ${await row.getAttribute('data-call-id')}`).toBe(false);
      }
      const hints = [toast.locator('kbd').first(), toast.getByText(/^Keys: A answers/)];
      for (const hint of hints) expect(await hint.isVisible()).toBe(size.name === 'desktop');
      expect(await widerThanViewport(page)).toBe(0);
    });
    await g.api('POST', `/v1/calls/${callId}/reject`);
  });

  it('5. greys an offline phone\'s last-known values with their age, disables what needs it, and says when the Calls page is not live', async () => {
    const galaxy = await pairedPhone(g, { name: 'Galaxy A54', health: { battery: 87, charging: true, audio: 'running', audioCapabilities: { capture: true, inject: true, method: 'voice_call', sampleRate: 16000 } } });
    await expect.poll(async () => (await g.api<{ device: { health?: { battery?: number } } }>('GET', `/v1/devices/${galaxy.deviceId}`)).body.device.health?.battery).toBe(87);
    await galaxy.stop();
    await expect.poll(async () => (await g.api<{ device: { connected: boolean } }>('GET', `/v1/devices/${galaxy.deviceId}`)).body.device.connected).toBe(false);
    await atEachSize(async (page) => {
      await page.goto(`${g.url}/phones`);
      const card = page.locator(`[data-device-id="${galaxy.deviceId}"]`);
      await card.getByText('87% · charging').waitFor();
      expect(await card.locator('.phone-stats').getAttribute('data-stale')).toBe('true');
      expect(await card.locator('.helper-state .badge').getAttribute('class')).not.toContain('badge-green');
      expect(await card.locator('.health-as-of').textContent()).toMatch(/Last known values.*\((just now|\d+ seconds? ago|\d+ min)/);
      const callFrom = card.getByRole('button', { name: 'Call from this phone' });
      expect(await callFrom.isDisabled()).toBe(true);
      expect(await card.getByText('It is offline: calls go out once it reconnects.').isVisible()).toBe(true);
      expect(await card.getByRole('link', { name: 'Call from this phone' }).count()).toBe(0);
    });
    await atEachSize(async (page) => {
      // The gateway out of reach, as the browser sees it: the live channel refused.
      await page.routeWebSocket(/\/v1\/live$/, (ws) => ws.close({ code: 1006, reason: 'network down' }));
      await page.goto(`${g.url}/calls`);
      await page.locator('tbody tr').first().waitFor();
      const header = page.locator('.page-header');
      await header.getByText(/^Not live: the gateway cannot be reached/).waitFor();
      expect(await header.textContent()).not.toContain('Rows change as the calls do');
    });
  });

  it('7. records the tones sent on the timeline and in the call\'s events, as the API\'s, not the phone\'s', async () => {
    const placed = await g.api<{ call: { id: string } }>('POST', '/v1/calls', { deviceId: phone.deviceId, to: '+49 30 1234567' });
    const callId = placed.body.call.id;
    await expect.poll(async () => (await g.api<{ call: { state: string } }>('GET', `/v1/calls/${callId}`)).body.call.state).toBe('dialing');
    phone.remoteAnswer();
    const digits = { desktop: '1', phone: '9' } as const;
    await atEachSize(async (page, size) => {
      await page.goto(`${g.url}/calls/${callId}`);
      await page.locator('.call-page[data-state="active"]').waitFor();
      await page.getByRole('button', { name: `Tone ${digits[size.name]}` }).click();
      const entry = page.locator('.timeline li', { hasText: `digits: ${digits[size.name]}` });
      await entry.waitFor();
      expect(await entry.textContent()).toContain('Tones sent through the API');
      expect(await entry.textContent()).toContain('sent by the API, not a phone event');
    });
    await g.api('POST', `/v1/calls/${callId}/hangup`);
    await expect.poll(async () => (await g.api<{ call: { state: string } }>('GET', `/v1/calls/${callId}`)).body.call.state).toBe('ended');
    const events = (await g.api<{ events: Array<{ event: string; payload: Record<string, unknown> }> }>('GET', `/v1/calls/${callId}/events`)).body.events;
    const sent = events.filter((e) => e.event === 'gateway.dtmf_sent');
    expect(sent.map((e) => [e.payload.digits, e.payload.source])).toEqual([
      ['1', 'api'],
      ['9', 'api'],
    ]);
  });

  it('has no element wider than a 390 px screen on any page', async () => {
    const calls = (await g.api<{ calls: Array<{ id: string }> }>('GET', '/v1/calls')).body.calls;
    const pages = ['/calls', `/calls/${calls[0]!.id}`, '/dialer', '/phones', '/assistant', '/webhooks', '/api-keys', '/settings', '/users'];
    const phoneSize = VIEWPORTS[1];
    const sized = await browser.newContext({ viewport: { width: phoneSize.width, height: phoneSize.height }, hasTouch: true, isMobile: true });
    sized.setDefaultTimeout(8000);
    await sized.addCookies(await context.cookies());
    const page = await sized.newPage();
    try {
      for (const path of pages) {
        await page.goto(`${g.url}${path}`);
        await page.getByRole('heading', { level: 1 }).first().waitFor();
        await page.waitForLoadState('networkidle');
        const wide = await page.evaluate(WIDER_THAN_VIEWPORT);
        expect(wide, `on ${path}`).toEqual([]);
      }
    } finally {
      await sized.close();
    }
  });

  it('left no uncaught errors in the pages', () => {
    expect(errors).toEqual([]);
  });
});
