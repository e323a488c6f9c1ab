import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETUP_TOKEN_FILE } from '../../src/accounts/index.js';
import { PhoneSimulator } from '../../src/simulator/index.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { pairingCode } from '../helpers/phones.js';
import { consoleContext, expectText, launchBrowser, nav, screenshot, skipBrowser, watchErrors } from './support.js';

const OWNER = { email: 'owner@example.com', password: 'correct horse battery' };

// What the page.evaluate callbacks touch in the browser (this project's types are Node's, not the DOM's).
declare const window: { marker?: string };
declare const document: { activeElement: { textContent: string | null; tagName: string } | null; documentElement: { scrollWidth: number } };

/**
 * The console in a real browser, as an operator uses it, against a real gateway and simulated
 * phones. The tests run in order and share the gateway: the first one creates the owner.
 */
describe.skipIf(skipBrowser)('web console in Chromium', () => {
  let g: TestGateway;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  let phone: PhoneSimulator | undefined;
  const phones: PhoneSimulator[] = [];

  beforeAll(async () => {
    [g, browser] = await Promise.all([startTestGateway({ env: { PUBLIC_URL: 'https://gateway.example.com' }, timings: { pingIntervalMs: 1000 } }), launchBrowser()]);
    context = await consoleContext(browser);
    page = await context.newPage();
    errors = watchErrors(page);
  }, 30_000);

  afterAll(async () => {
    await Promise.all(phones.map((p) => p.stop()));
    await browser?.close();
    await g?.stop();
  });

  it('shows the first-run page and creates the owner, who is then signed in', async () => {
    await page.goto(`${g.url}/`);
    await page.getByRole('heading', { name: 'Welcome' }).waitFor();
    await expectText(page, 'DATA_DIR/setup-token');
    await page.getByLabel('Email').fill(OWNER.email);
    await screenshot(page, 'first-run');
    await page.getByLabel('Password', { exact: true }).fill(OWNER.password);
    await page.getByLabel('Repeat the password').fill('something else');
    await page.getByRole('button', { name: 'Create owner account' }).click();
    await expectText(page, 'The two passwords differ');
    await page.getByLabel('Repeat the password').fill(OWNER.password);
    // Without the setup token the gateway printed at start the owner is not created.
    await page.getByLabel('Setup token').fill('vgsetup_not-the-one-printed');
    await page.getByRole('button', { name: 'Create owner account' }).click();
    await expectText(page, 'not the setup token of this start');
    expect(await page.getByLabel('Setup token').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Setup token').fill(readFileSync(path.join(g.dataDir, SETUP_TOKEN_FILE), 'utf8').trim());
    await page.getByRole('button', { name: 'Create owner account' }).click();
    await page.getByRole('heading', { name: 'Calls', level: 1 }).waitFor();
    expect(page.url()).toBe(`${g.url}/calls`);
    await expectText(page, 'No calls yet');
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === 'vg_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
  });

  it('refuses a signed-out browser: the sign-in page, and 401 from the API', async () => {
    const other = await browser.newContext();
    try {
      const p = await other.newPage();
      await p.goto(`${g.url}/settings`);
      await p.getByRole('heading', { name: 'Sign in' }).waitFor();
      expect(await p.getByText('Webhook URL').count()).toBe(0);
      const status = await p.evaluate(async () => (await fetch('/v1/settings')).status);
      expect(status).toBe(401);
      const post = await p.evaluate(async () => (await fetch('/v1/api-keys', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"x"}' })).status);
      expect(post).toBe(401);
    } finally {
      await other.close();
    }
  });

  it('refuses a wrong password beside the form, then signs in', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await expectText(page, 'You are signed out.');
    await page.getByLabel('Email').fill(OWNER.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('The email or the password is wrong');
    await page.getByLabel('Password').fill(OWNER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Calls', level: 1 }).waitFor();
  });

  it('offers the app for download beside the pairing code, or says how to build it', async () => {
    await nav(page, 'Phones');
    await page.getByRole('button', { name: 'Pair a phone' }).first().click();
    const install = page.getByRole('region', { name: 'Install the app' });
    await install.getByTestId('app-not-built').waitFor();
    await expectText(page, 'npm run build:android');

    // The build writes the APK where the gateway serves it from (the test gateway's data directory).
    writeFileSync(path.join(g.dataDir, 'voice-gateway.apk'), Buffer.from('PK\u0003\u0004 a stand-in for the APK'));
    await page.getByRole('button', { name: 'New code' }).click();
    const qr = install.getByRole('img', { name: 'QR code to download the Voice Gateway app' });
    await qr.waitFor();
    await expect.poll(() => qr.evaluate((img: { complete: boolean; naturalWidth: number }) => img.complete && img.naturalWidth > 0)).toBe(true);
    expect(await install.getByRole('link').getAttribute('href')).toBe('https://gateway.example.com/app/voice-gateway.apk');
    await page.getByRole('button', { name: 'Cancel' }).click();
  });

  it('pairs a phone from the code shown on the page, with a QR code and a countdown', async () => {
    await nav(page, 'Phones');
    await expectText(page, 'No phones yet');
    await page.getByRole('button', { name: 'Pair a phone' }).first().click();
    const code = (await page.getByTestId('pair-code').textContent())?.trim() ?? '';
    expect(code).toMatch(/^[0-9A-Z]{10}$/);
    await expectText(page, 'Expires in 9:5');
    expect(await page.getByTestId('pair-uri').textContent()).toContain(`code=${code}`);
    expect(await page.getByRole('img', { name: /QR code to pair/ }).getAttribute('src')).toMatch(/^data:image\/svg\+xml/);
    await screenshot(page, 'phones-pairing');

    phone = new PhoneSimulator({ gatewayUrl: g.url, name: 'Pixel 8', model: 'Pixel 8', dial: { outcome: 'manual' }, health: { battery: 76, charging: false, network: 'cellular', signal: 3, carrier: 'Telekom' } });
    phones.push(phone);
    await phone.pair(code);
    await phone.connect();
    await expectText(page, 'Pixel 8 is paired and connected');
    await page.getByRole('button', { name: 'Done' }).click();
    const card = page.locator(`[data-device-id="${phone.deviceId}"]`);
    await card.getByText('Connected').waitFor();
    await card.getByText('Telekom').waitFor();
    await card.getByText('76%').waitFor();
    await screenshot(page, 'phones');
  });

  it('places a call from the dialer and shows its state change without a reload, then hangs up', async () => {
    await nav(page, 'Dialer');
    await page.getByLabel('Number').fill('+49 151 2345678');
    await page.getByRole('button', { name: 'Call', exact: true }).click();
    const callPage = page.locator('.call-page');
    await callPage.waitFor();
    await page.locator('.call-page[data-state="dialing"]').waitFor();
    const callId = await callPage.getAttribute('data-call-id');
    await page.evaluate(() => (window.marker = 'no reload'));

    phone!.remoteAnswer();
    await page.locator('.call-page[data-state="active"]').waitFor();
    await expectText(page, 'Active');
    await page.getByRole('button', { name: 'Tone 1' }).click();
    await page.getByRole('button', { name: 'Tone 2' }).click();
    await expectText(page, 'Sent: 12');
    await expect.poll(() => phone!.dtmfDigits).toBe('12');
    await page.getByRole('button', { name: 'Hold' }).click();
    await page.locator('.call-page[data-state="held"]').waitFor();
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.locator('.call-page[data-state="active"]').waitFor();
    await page.locator('.timeline li', { hasText: 'On hold' }).waitFor();

    // Live audio over the media socket: the phone's tone plays in the page, the fake microphone reaches the phone.
    const audio = page.locator('section', { hasText: 'Live audio' });
    await audio.getByRole('button', { name: 'Listen' }).click();
    await audio.getByText('Live', { exact: true }).waitFor();
    await expect.poll(async () => Number(await audio.getByRole('meter', { name: 'Caller level' }).getAttribute('aria-valuenow')), { timeout: 5000 }).toBeGreaterThan(20);
    phone!.resetReceived();
    await audio.getByRole('button', { name: 'Talk' }).click();
    await expect.poll(async () => Number(await audio.getByRole('meter', { name: 'Microphone level' }).getAttribute('aria-valuenow')), { timeout: 5000 }).toBeGreaterThan(0);
    await expect.poll(() => phone!.received.frames, { timeout: 5000 }).toBeGreaterThan(10);
    await screenshot(page, 'call', { fullPage: true });
    await audio.getByRole('button', { name: 'Stop talking' }).click();

    await page.getByRole('button', { name: 'Hang up' }).click();
    await page.locator('.call-page[data-state="ended"]').waitFor();
    await expectText(page, 'This call is over');
    expect(await page.evaluate(() => window.marker)).toBe('no reload');
    const stored = await g.api<{ call: { state: string } }>('GET', `/v1/calls/${callId}`);
    expect(stored.body.call.state).toBe('ended');
  });

  it('updates rows of the call log live and answers an incoming call from the ringing toast', async () => {
    await nav(page, 'Calls');
    await page.locator('tr[data-state="ended"]').first().waitFor();
    const ringing = phone!.ringIncoming('+44 20 7946 0958');
    const toast = page.getByRole('region', { name: /Incoming call from \+44 20 7946 0958/ });
    await toast.waitFor();
    const callId = await ringing;
    const row = page.locator(`tr[data-call-id="${callId}"]`);
    await row.locator('text=Ringing').waitFor();
    // Answer opens the call, with live audio both ways (test/browser/incoming.test.ts follows the audio).
    await toast.getByRole('button', { name: /^Answer/ }).click();
    await page.locator(`.call-page[data-call-id="${callId}"][data-state="active"]`).waitFor();
    await expect.poll(() => toast.count()).toBe(0);
    phone!.remoteHangup();
    await page.locator('.call-page[data-state="ended"]').waitFor();
    await nav(page, 'Calls');
    await row.locator('text=Ended').waitFor();

    await seedHistory(g, phone!);
    await page.reload();
    await page.locator('tr[data-state="failed"]').first().waitFor();
    await screenshot(page, 'calls');
    await page.getByLabel('State').selectOption('failed');
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    expect(page.url()).toContain('state=failed');
  });

  it('creates an API key, shows it once with a copy button, and revokes it', async () => {
    await nav(page, 'API keys');
    await expectText(page, 'No API keys yet');
    await page.getByLabel('Name').fill('CRM integration');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-key').textContent())?.trim() ?? '';
    expect(key).toMatch(/^gw_[A-Za-z0-9_-]{20,}$/);
    await page.getByRole('button', { name: 'Copy' }).waitFor();
    expect((await g.api('GET', '/v1/settings', undefined, { key })).status).toBe(200);
    await screenshot(page, 'api-keys');
    await page.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => page.getByText(key).count()).toBe(0);
    const row = page.locator('tr', { hasText: 'CRM integration' });
    await row.getByText(key.slice(0, 11)).waitFor();

    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByRole('button', { name: 'Revoke' }).click();
    await expectText(page, 'No API keys yet');
    expect((await g.api('GET', '/v1/settings', undefined, { key })).status).toBe(401);
  });

  it('changes a setting, and shows the API\'s message beside a field it refuses', async () => {
    await nav(page, 'Settings');
    const form = page.getByRole('form', { name: 'Addresses' });
    await form.getByLabel('Webhook URL').fill('ftp://hooks.example.com');
    await form.getByRole('button', { name: 'Save' }).click();
    const error = form.locator('.field', { hasText: 'Webhook URL' }).getByRole('alert');
    await expect.poll(() => error.textContent()).toContain('http');
    await form.getByLabel('Webhook URL').fill('https://hooks.example.com/voice');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.getByText('Saved').waitFor();
    const settings = await g.api<{ settings: { webhookUrl: string } }>('GET', '/v1/settings');
    expect(settings.body.settings.webhookUrl).toBe('https://hooks.example.com/voice');

    const secretCard = page.locator('section', { hasText: 'Webhook signing' });
    await secretCard.getByRole('button', { name: 'Rotate secret' }).click();
    await secretCard.getByRole('button', { name: 'Rotate now' }).click();
    const secret = (await page.getByTestId('new-secret').textContent())?.trim() ?? '';
    expect(secret).toMatch(/^whsec_/);
    await expectText(page, `ending in ${secret.slice(-4)}`);
    await screenshot(page, 'settings', { fullPage: true });
  });

  it('shows the assistant settings with a character counter, and its message inbox', async () => {
    await seedMessages(g);
    await nav(page, 'Assistant');
    await page.getByRole('heading', { name: 'Messages' }).waitFor();
    const about = page.getByLabel('What the assistant may tell callers');
    // The settings load after the page: wait for the form, or for the notice of a gateway without the assistant.
    await about.or(page.getByText('The assistant is not available on this gateway yet')).first().waitFor();
    if ((await about.count()) > 0) {
      await about.fill('We are open Monday to Friday, 9:00 to 17:00. For urgent repairs call the emergency line.');
      await expectText(page, '88 / 4,000');
      await page.getByLabel('Answers for').fill('Example Plumbing');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Saved').waitFor();
    } else {
      await expectText(page, 'not available on this gateway yet');
    }
    await screenshot(page, 'assistant', { fullPage: true });
  });

  it('lists webhook deliveries, filterable by call and result', async () => {
    await nav(page, 'Webhooks');
    await page.getByRole('heading', { name: 'Webhook deliveries' }).waitFor();
    await expectText(page, 'https://hooks.example.com/voice');
    await page.getByLabel('Result').selectOption('failed');
    expect(page.url()).toContain('result=failed');
  });

  it('works at 360 px: the menu opens from the top bar and tables become cards', async () => {
    const mobile = await context.newPage();
    await mobile.setViewportSize({ width: 360, height: 760 });
    await mobile.goto(`${g.url}/calls`);
    await mobile.locator('tbody tr').first().waitFor();
    expect(await mobile.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await screenshot(mobile, 'mobile-calls');
    const menu = mobile.getByRole('button', { name: 'Menu' });
    await menu.click();
    await mobile.getByRole('link', { name: 'Phones' }).click();
    await mobile.getByRole('heading', { name: 'Phones', level: 1 }).waitFor();
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await mobile.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await screenshot(mobile, 'mobile-phones');
    await mobile.close();
  });

  it('can be driven from the keyboard: skip link, navigation and focus on the new page', async () => {
    await page.goto(`${g.url}/calls`);
    await page.getByRole('heading', { name: 'Calls', level: 1 }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    const phonesLink = page.getByRole('link', { name: 'Phones' });
    await phonesLink.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Phones', level: 1 }).waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe('H1');
  });

  it('marks a listen-only phone, and says how to start its audio helper again once it stopped', async () => {
    const moto = new PhoneSimulator({
      gatewayUrl: g.url,
      name: 'Moto G',
      health: { audio: 'running', audioCapabilities: { capture: true, inject: false, method: 'voice_downlink', sampleRate: 48000 } },
    });
    phones.push(moto);
    await moto.pair(await pairingCode(g));
    await moto.connect();
    await nav(page, 'Phones');
    const card = page.locator(`[data-device-id="${moto.deviceId}"]`);
    await card.getByText('Listen only').waitFor();
    expect(await card.getByRole('note').count()).toBe(0);

    moto.setHealth({ audio: 'stopped' });
    const hint = card.getByRole('note');
    await hint.waitFor();
    expect(await hint.textContent()).toContain('The audio helper is not running: it stops when the phone restarts.');
    expect(await hint.textContent()).toContain('Copy the start command');
    expect(await card.getByText('Listen only').count()).toBe(0);
    await card.getByText('Stopped').waitFor();
  });

  it('left no uncaught errors in the page', () => {
    expect(errors).toEqual([]);
  });
});

/** A few finished calls, so the log and its screenshot look like a phone line in use. */
async function seedHistory(g: TestGateway, phone: PhoneSimulator): Promise<void> {
  const deviceId = phone.deviceId!;
  const outcomes: Array<['answer' | 'busy' | 'failed', string]> = [
    ['busy', '+49 30 1234567'],
    ['failed', '+1 415 555 0100'],
    ['answer', '+33 1 23 45 67 89'],
  ];
  for (const [outcome, to] of outcomes) {
    phone.dial = { outcome, ringMs: 20, failReason: 'no service' };
    const placed = await g.api<{ call: { id: string } }>('POST', '/v1/calls', { deviceId, to, metadata: { ticket: 'T-1042' } });
    const id = placed.body.call.id;
    await waitForCall(g, id, (s) => s !== 'queued' && s !== 'dialing');
    if (outcome === 'answer') {
      await g.api('POST', `/v1/calls/${id}/hangup`);
      await waitForCall(g, id, (s) => s === 'ended');
    }
  }
  phone.dial = { outcome: 'manual', ringMs: 300, failReason: 'simulated failure' };
}

/** Messages as the assistant takes them, for the inbox (the assistant itself needs a model to talk to). */
async function seedMessages(g: TestGateway): Promise<void> {
  const calls = (await g.api<{ calls: Array<{ id: string; remoteNumber: string; direction: string }> }>('GET', '/v1/calls?direction=incoming')).body.calls;
  const call = calls[0];
  if (!call) return;
  const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
  await g.store.db
    .insertInto('assistant_messages')
    .values([
      { call_id: call.id, remote_number: call.remoteNumber, caller_name: 'Dana Fischer', reason: 'The boiler in the flat on Hauptstraße 12 is leaking; asks for a visit today.', callback_number: '+49 171 5550123', urgency: 'high', taken_at: at(3) },
      { call_id: 'call_seeded_00000000001', remote_number: '+44 20 7946 0000', caller_name: 'Sam Okafor', reason: 'Wants a quote for a new bathroom; any weekday after 4 pm.', callback_number: '+44 20 7946 0000', urgency: 'normal', taken_at: at(95) },
    ])
    .execute();
}

async function waitForCall(g: TestGateway, id: string, done: (state: string) => boolean): Promise<void> {
  await expect.poll(async () => (await g.api<{ call: { state: string } }>('GET', `/v1/calls/${id}`)).body.call.state, { timeout: 5000 }).toSatisfy(done);
}
