import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PhoneSimulator } from '../../src/simulator/index.js';
import { setupOwner } from '../console/support.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { consoleContext, launchBrowser, screenshot, skipBrowser, watchErrors } from './support.js';

// What the page.evaluate callbacks touch in the browser (this project's types are Node's).
declare const navigator: { clipboard: { readText(): Promise<string> } };

const REPORT = {
  generatedAt: '2026-11-26T20:00:00.000Z',
  trigger: 'helper_report',
  app: { version: '1.4.0' },
  device: { manufacturer: 'Google', brand: 'google', model: 'Pixel 7', sdk: 34, release: '14' },
  checks: [
    { name: 'dialer_role', ok: true },
    { name: 'permission:android.permission.CALL_PHONE', ok: true },
    { name: 'permission:android.permission.POST_NOTIFICATIONS', ok: false },
    { name: 'battery_exemption', ok: null, detail: 'could not tell' },
    { name: 'helper', ok: true, detail: 'running' },
  ],
  gateway: { link: 'connected', lastError: null },
  helper: {
    state: 'running',
    uid: 2000,
    capabilities: { capture: true, inject: false, method: 'voice_downlink', sampleRate: 48000 },
    diagnostics: {
      sdk: 34,
      isPstnCallAudioInterceptable: false,
      attempts: [
        { way: 'call_interception', result: 'failed', exception: 'java.lang.SecurityException', message: 'not allowed for this call' },
        { way: 'voice_downlink', result: 'opened' },
      ],
    },
  },
};

/**
 * The phone's self-test on its card in the console: a phone paired through the page sends a report,
 * the card shows each check and the helper's attempts, and "Copy for a bug report" puts the header
 * line and the JSON on the clipboard.
 */
describe.skipIf(skipBrowser)("the phone's self-test in the console", () => {
  let g: TestGateway;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  let phone: PhoneSimulator | undefined;

  beforeAll(async () => {
    [g, browser] = await Promise.all([startTestGateway({ env: { PUBLIC_URL: 'https://gateway.example.com' } }), launchBrowser()]);
    context = await consoleContext(browser, { url: g.url, cookie: await setupOwner(g) });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: g.url });
    page = await context.newPage();
    errors = watchErrors(page);
  }, 30_000);

  afterAll(async () => {
    await phone?.stop();
    await browser?.close();
    await g?.stop();
  });

  it('shows the latest report on the phone card and copies it for a bug report', async () => {
    await page.goto(`${g.url}/phones`);
    await page.getByRole('heading', { name: 'Phones', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Pair a phone' }).first().click();
    const code = (await page.getByTestId('pair-code').textContent())?.trim() ?? '';
    phone = new PhoneSimulator({ gatewayUrl: g.url, name: 'Pixel 7', model: 'Pixel 7' });
    await phone.pair(code);
    await phone.connect();
    await page.getByText('Pixel 7 is paired and connected').waitFor();
    await page.getByRole('button', { name: 'Done' }).click();

    const card = page.locator(`[data-device-id="${phone.deviceId}"]`);
    await card.getByText('Self-test report').click();
    await card.getByTestId('no-diagnostics').waitFor();

    // The report comes while the card is open: it is read again without a reload.
    phone.diagnostics({ ...REPORT, deviceToken: 'dt_must-never-show' });
    const report = card.getByTestId('diagnostics');
    await report.waitFor();
    const check = (name: string) => report.locator(`li[data-check="${name}"]`);
    expect(await check('dialer_role').textContent()).toMatch(/^ok Default dialer/);
    expect(await check('permission:android.permission.POST_NOTIFICATIONS').textContent()).toBe('failed Permission POST_NOTIFICATIONS');
    expect(await check('battery_exemption').textContent()).toContain('unknown Left out of battery optimisation — could not tell');
    const rows = report.locator('table.attempts tbody tr');
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).textContent()).toBe('call_interceptionfailedjava.lang.SecurityExceptionnot allowed for this call');
    expect(await rows.nth(1).textContent()).toBe('voice_downlinkopened');
    expect(await report.textContent()).toContain('app 1.4.0, Google Pixel 7, Android 14 (SDK 34)');
    expect(await page.locator('main').textContent()).not.toContain('dt_must-never-show');
    await screenshot(page, 'phone-self-test', { fullPage: true });

    await report.getByRole('button', { name: 'Copy for a bug report' }).click();
    await report.getByRole('button', { name: '✓ Copied' }).waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    const [header, ...json] = copied.split('\n');
    expect(header).toMatch(/^Voice Gateway self-test: app 1\.4\.0, Google Pixel 7, Android 14 \(SDK 34\), received \d{4}-\d\d-\d\dT/);
    const body = JSON.parse(json.join('\n')) as { receivedAt: string; report: typeof REPORT };
    expect(body.report).toEqual(REPORT);
    expect(copied).not.toContain('dt_must-never-show');
    expect(errors).toEqual([]);
  });
});
