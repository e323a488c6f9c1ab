import type { Browser, BrowserContext, Page, WebSocketRoute } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetPassword } from '../../src/commands/reset-password.js';
import { startDemo, type Demo } from '../../src/demo/index.js';
import type { PhoneSimulator } from '../../src/simulator/index.js';
import { consoleClient, cookieOf, pairedPhone } from '../console/support.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { databaseFor, TEST_DATABASE_URL } from '../helpers/postgres.js';
import { WebhookReceiver } from '../helpers/phones.js';
import { consoleContext, expectText, launchBrowser, nav, screenshot, skipBrowser, watchErrors } from './support.js';

declare const document: { activeElement: { textContent: string | null; tagName: string } | null };

const MEMBER = { email: 'member@example.com', password: 'member horse battery' };
const ZOD_WORDING = /Too (small|big)|Invalid (input|option)|expected (string|number)/;

/**
 * Issue 13 in the browser, for running the line: the demo's ready sign-in, plain words, the
 * assistant offered only with a key, settings with their sources, the webhook log searched, paged
 * and retried, phone cards that say when they may be stale, renaming a phone, what a member sees,
 * and a password reset link. The tests run in order and share one gateway.
 */
describe.skipIf(skipBrowser)('running the line from the console', () => {
  let g: TestGateway;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  let demo: Demo;
  let phone: PhoneSimulator;
  let receiver: WebhookReceiver;
  /** While set, the console's live channel is refused and cut (a network outage, as the browser sees it). */
  let liveDown = false;
  const liveSockets: WebSocketRoute[] = [];

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    [g, browser] = await Promise.all([
      startTestGateway({ env: { PUBLIC_URL: 'https://gateway.example.com', WEBHOOK_URL: receiver.url, WEBHOOK_RETRY_DELAYS: '20ms,20ms,20ms' }, timings: { pingIntervalMs: 1000 } }),
      launchBrowser(),
    ]);
    demo = await startDemo(g, () => undefined);
    phone = await pairedPhone(g, { name: 'Pixel 8', health: { battery: 64, charging: true, network: 'wifi', signal: 4, carrier: 'Telekom' } });
    context = await consoleContext(browser);
    await context.routeWebSocket(/\/v1\/live$/, (ws) => {
      if (liveDown) return ws.close({ code: 1006, reason: 'network down' });
      ws.connectToServer();
      liveSockets.push(ws);
    });
    page = await context.newPage();
    errors = watchErrors(page);
  }, 30_000);

  afterAll(async () => {
    await phone?.stop();
    await demo?.stop();
    await browser?.close();
    await g?.stop();
    await receiver?.close();
  });

  it('signs in with what the demo printed, and says in plain words what is missing', async () => {
    expect(demo.banner).toContain(`console         ${g.url}/`);
    await page.goto(`${g.url}/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Email').fill(demo.signIn!.email);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const password = page.locator('.field', { hasText: 'Password' }).getByRole('alert');
    await expect.poll(() => password.textContent()).toBe('Must not be empty.');
    expect(await page.locator('main').textContent()).not.toMatch(ZOD_WORDING);
    await page.getByLabel('Password').fill(demo.signIn!.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Calls', level: 1 }).waitFor();
  });

  it('offers "Hand to assistant" only once a model key is set, pointing to Settings until then', async () => {
    const ringing = phone.ringIncoming('+49 170 1111111');
    const toast = page.getByRole('region', { name: /Incoming call from \+49 170 1111111/ });
    await toast.getByRole('link', { name: /^Open/ }).click();
    const callId = await ringing;
    // The page appears once the call has loaded; focus starts at its heading.
    await page.getByRole('heading', { name: '+49 170 1111111', level: 1 }).waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe('H1');
    const card = page.locator('section', { has: page.getByRole('heading', { name: 'Assistant', level: 2 }) });
    await card.getByTestId('assistant-needs-key').waitFor();
    expect(await card.getByRole('button', { name: 'Hand to assistant' }).count()).toBe(0);
    expect(await card.textContent()).not.toContain('assistantApiKey');

    await card.getByRole('link', { name: 'Add one in Settings' }).click();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    const key = page.getByRole('form', { name: 'Model API key' });
    await key.getByLabel('Set to').fill('sk-test-0123456789abcdef');
    await key.getByRole('button', { name: 'Save key' }).click();
    await key.getByText('ending in cdef').waitFor();
    await page.goBack();
    await card.getByRole('button', { name: 'Hand to assistant' }).waitFor();
    await g.api('POST', `/v1/calls/${callId}/reject`);
    await page.locator('.call-page[data-state="rejected"]').waitFor();
  });

  it('shows where each setting comes from, and links the sidebar to the documentation URL', async () => {
    await nav(page, 'Settings');
    const addresses = page.getByRole('form', { name: 'Addresses' });
    const source = (label: string) => addresses.locator('.field', { hasText: label }).locator('.source');
    expect(await source('Public address').textContent()).toBe('From the environment (PUBLIC_URL).');
    expect(await source('Webhook URL').textContent()).toBe('From the environment (WEBHOOK_URL).');
    expect(await source('Documentation URL').textContent()).toBe('Not set.');
    expect(await page.getByRole('form', { name: 'Assistant model' }).locator('.source').textContent()).toBe("Not set: the gateway's default, gpt-realtime, applies.");
    expect(await page.getByRole('link', { name: 'Documentation ↗' }).count()).toBe(0);

    await addresses.getByLabel('Documentation URL').fill('https://docs.example.com/line');
    await addresses.getByRole('button', { name: 'Save' }).click();
    await addresses.getByText('✓ Saved').waitFor();
    expect(await source('Documentation URL').textContent()).toBe('Set in the console; cleared, it falls back to DOCS_URL or the default.');
    expect(await page.getByRole('link', { name: 'Documentation ↗' }).getAttribute('href')).toBe('https://docs.example.com/line');
    await screenshot(page, 'settings-sources', { fullPage: true });
  });

  it('finds failed webhook attempts on the server, pages through the log and sends a delivery again', async () => {
    // The receiver fails three attempts (of the first call's events), then 25 more calls deliver
    // 50 attempts after them (57 attempts in all with the two of the call before).
    receiver.failNext(3, 503);
    for (let i = 0; i < 26; i++) {
      const id = await phone.ringIncoming(`+4930555${String(i).padStart(3, '0')}`);
      phone.remoteHangup();
      await expect.poll(async () => (await g.api<{ call: { state: string } }>('GET', `/v1/calls/${id}`)).body.call.state).toBe('ended');
    }
    await expect.poll(async () => (await g.api<{ deliveries: unknown[] }>('GET', '/v1/webhook-deliveries?limit=200')).body.deliveries.length, { timeout: 10_000 }).toBe(57);

    await nav(page, 'Webhooks');
    await page.getByLabel('Result').selectOption('failed');
    // One row per event that failed, the failed attempts inside. A retry waits while the next events
    // go out, so the three failures may fall on one, two or three events: the server says which.
    const failed = (await g.api<{ deliveries: Array<{ ok: boolean; eventId: string }> }>('GET', '/v1/webhook-deliveries?limit=200')).body.deliveries.filter((d) => !d.ok);
    expect(failed).toHaveLength(3);
    const rows = page.locator('tbody tr');
    await expect.poll(() => rows.locator('li[data-ok="false"]').count()).toBe(3);
    expect(await rows.count()).toBe(new Set(failed.map((d) => d.eventId)).size);
    expect(page.url()).toContain('result=failed');

    const failedId = Number(await rows.first().getAttribute('data-last-attempt-id'));
    await rows.first().getByRole('button', { name: /^Retry/ }).click();
    await rows.first().getByText('✓ Sent again').waitFor();
    await expect
      .poll(async () => (await g.api<{ deliveries: Array<{ retryOf?: number; ok: boolean }> }>('GET', '/v1/webhook-deliveries?limit=5')).body.deliveries.find((d) => d.retryOf === failedId))
      .toMatchObject({ ok: true, retryOf: failedId });

    await page.getByLabel('Result').selectOption('');
    // The newest 50 attempts, one row per event among them (a retry may put two attempts of one event there).
    const newestPage = (await g.api<{ deliveries: Array<{ eventId: string }> }>('GET', '/v1/webhook-deliveries?limit=50')).body.deliveries;
    expect(newestPage).toHaveLength(50);
    await expect.poll(() => rows.count()).toBe(new Set(newestPage.map((d) => d.eventId)).size);
    const newest = await rows.first().getAttribute('data-last-attempt-id');
    await page.getByRole('button', { name: 'Older →' }).click();
    // 58 attempts at 50 a page: the older page holds the other 8, grouped into at most 8 events (an
    // event whose attempts span both pages, like the one sent again, shows on both).
    await expect.poll(() => rows.count()).toBeLessThanOrEqual(8);
    await page.getByRole('button', { name: '← Newer' }).click();
    await expect.poll(() => rows.first().getAttribute('data-last-attempt-id')).toBe(newest);

    await page.getByLabel('Event').selectOption('call.disconnected');
    await expect.poll(async () => new Set((await rows.locator('td[data-label="Event"]').allTextContents()).map((t) => t.replace(/http\S+$/, '')))).toEqual(new Set(['Disconnected']));
  });

  it('says when a phone card may be stale: the live channel down, or the phone offline; renames a phone', async () => {
    await nav(page, 'Phones');
    const card = page.locator(`[data-device-id="${phone.deviceId}"]`);
    await card.getByText('Connected', { exact: true }).waitFor();
    expect(await card.locator('.freshness').count()).toBe(0);

    liveDown = true;
    for (const ws of liveSockets.splice(0)) await ws.close({ code: 1006, reason: 'network down' });
    await card.getByText(/Live updates are (off|reconnecting): this card shows the phone as it was last seen/).waitFor();
    await card.getByText('Last seen connected').waitFor();
    expect(await card.locator('.health-as-of').textContent()).toMatch(/health as of \d\d:\d\d:\d\d \(/);
    await screenshot(page, 'phones-stale');
    liveDown = false;
    await page.getByText('Live', { exact: true }).waitFor({ timeout: 20_000 });
    await expect.poll(() => card.locator('.freshness').count()).toBe(0);

    await phone.disconnect();
    await card.getByText(/^Offline since (just now|\d+ seconds? ago): calls cannot go out or come in/).waitFor();
    await card.locator('.health-as-of').waitFor();

    await card.getByRole('button', { name: 'Rename Pixel 8' }).click();
    await card.getByLabel('Name', { exact: true }).fill('Front desk');
    await card.getByRole('button', { name: 'Save' }).click();
    await card.getByRole('heading', { name: 'Front desk' }).waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Rename');
    expect((await g.api<{ device: { name: string } }>('GET', `/v1/devices/${phone.deviceId}`)).body.device.name).toBe('Front desk');
    await phone.connect();
  });

  it('shows a member no controls only the owner may use', async () => {
    expect((await g.api('POST', '/v1/users', MEMBER)).status).toBe(201);
    expect((await g.api('POST', '/v1/api-keys', { name: 'CRM integration' })).status).toBe(201);
    const login = await consoleClient(g)('POST', '/v1/auth/login', MEMBER);
    const member = await consoleContext(browser, { url: g.url, cookie: cookieOf(login) });
    try {
      const p = await member.newPage();
      await p.goto(`${g.url}/api-keys`);
      await p.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
      await p.locator('tr', { hasText: 'CRM integration' }).waitFor();
      await expectText(p, 'Only the owner of this gateway makes and revokes API keys');
      expect(await p.getByRole('button', { name: 'Create key' }).count()).toBe(0);
      expect(await p.getByRole('button', { name: 'Revoke' }).count()).toBe(0);
      await p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users', exact: true }).click();
      await p.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
      await p.locator('tr', { hasText: MEMBER.email }).waitFor();
      expect(await p.getByRole('button', { name: 'Add user' }).count()).toBe(0);
      expect(await p.getByRole('button', { name: 'Remove' }).count()).toBe(0);
      await p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings', exact: true }).click();
      await p.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
      await expectText(p, 'Only the owner of this gateway changes these settings');
      expect(await p.getByRole('button', { name: /^(Save|Save key|Save secret|Rotate secret)$/ }).count()).toBe(0);
      expect(await p.getByLabel('Public address').getAttribute('readonly')).not.toBeNull();
    } finally {
      await member.close();
    }
  });

  it('sets a new password from the link `voice-gateway reset-password` prints', async () => {
    const out: string[] = [];
    const env = { DATA_DIR: g.dataDir, ...(TEST_DATABASE_URL ? { DATABASE_URL: (await databaseFor(g.dataDir)).url } : {}) };
    const code = await resetPassword([MEMBER.email], env, { out: (l) => out.push(l), err: (l) => out.push(l), readPassword: () => Promise.resolve('') });
    expect(code, out.join('\n')).toBe(0);
    const link = /https?:\/\/\S+?(\/reset-password\?token=\S+)/.exec(out.join('\n'))![1]!;

    const fresh = await consoleContext(browser);
    try {
      const p = await fresh.newPage();
      await p.goto(`${g.url}${link}`);
      await p.getByRole('heading', { name: 'Choose a new password' }).waitFor();
      await p.getByLabel('New password').fill('a brand new password');
      await p.getByLabel('Repeat the password').fill('a brand new password');
      await screenshot(p, 'reset-password');
      await p.getByRole('button', { name: 'Set the password and sign in' }).click();
      await p.getByRole('heading', { name: 'Calls', level: 1 }).waitFor();
      expect(new URL(p.url()).pathname).toBe('/calls');
      expect((await consoleClient(g)('POST', '/v1/auth/login', MEMBER)).status).toBe(401);

      await p.goto(`${g.url}${link}`);
      await p.getByRole('heading', { name: 'Choose a new password' }).waitFor();
      await p.getByLabel('New password').fill('another new password');
      await p.getByLabel('Repeat the password').fill('another new password');
      await p.getByRole('button', { name: 'Set the password and sign in' }).click();
      await expectText(p, 'This link has expired or was used already.');
    } finally {
      await fresh.close();
    }
  });

  it('left no uncaught errors in the page', () => {
    expect(errors).toEqual([]);
  });
});
