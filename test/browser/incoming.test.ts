import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PhoneSimulator } from '../../src/simulator/index.js';
import { pairedPhone, setupOwner } from '../console/support.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { browserRecord, consoleContext, expectText, installRecorders, launchBrowser, nav, screenshot, skipBrowser, watchErrors } from './support.js';

// What the page.evaluate callbacks touch in the browser (this project's types are Node's, not the DOM's).
declare const document: {
  title: string;
  activeElement: { textContent: string | null; tagName: string; getAttribute(name: string): string | null } | null;
  hasFocus: () => boolean;
  getElementById(id: string): { getBoundingClientRect(): { top: number; bottom: number } } | null;
};
declare const window: { innerHeight: number };

type CallState = 'queued' | 'dialing' | 'ringing' | 'active' | 'held' | 'ended' | 'rejected' | 'failed';

/**
 * Issue 13 in the browser, for the calls themselves: incoming calls like a phone, the dialer's
 * check, the call log's outcomes and search, focus on Hold/Resume, and the assistant's inbox.
 * The tests run in order and share one gateway, one signed-in owner and one simulated phone.
 */
describe.skipIf(skipBrowser)('calls in the console, like a phone', () => {
  let g: TestGateway;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  let phone: PhoneSimulator;

  const state = async (callId: string): Promise<CallState> => (await g.api<{ call: { state: CallState } }>('GET', `/v1/calls/${callId}`)).body.call.state;
  const activeLabel = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent ?? null);

  beforeAll(async () => {
    [g, browser] = await Promise.all([startTestGateway({ env: { PUBLIC_URL: 'https://gateway.example.com' } }), launchBrowser()]);
    const cookie = await setupOwner(g);
    phone = await pairedPhone(g, { name: 'Pixel 8', dial: { outcome: 'manual' }, audio: { kind: 'tone', frequency: 440 } });
    context = await consoleContext(browser, { url: g.url, cookie });
    await installRecorders(context);
    page = await context.newPage();
    errors = watchErrors(page);
  }, 30_000);

  afterAll(async () => {
    await phone?.stop();
    await browser?.close();
    await g?.stop();
  });

  it('rings like a phone: sound, tab title, focus on the toast with its keys; asks for notifications only when asked to', async () => {
    await page.goto(`${g.url}/calls`);
    await page.getByRole('heading', { name: 'Calls', level: 1 }).waitFor();
    expect((await browserRecord(page)).permissionAsks, 'never on load').toBe(0);
    await page.getByRole('link', { name: 'New call' }).focus();

    const ringing = phone.ringIncoming('+44 20 7946 0958');
    const toast = page.getByRole('region', { name: 'Incoming call from +44 20 7946 0958' });
    await toast.waitFor();
    const callId = await ringing;
    await expect.poll(activeLabel).toBe('Incoming call from +44 20 7946 0958');
    await expect.poll(() => page.evaluate(() => document.title)).toBe('☎ Incoming call: +44 20 7946 0958');
    await expect.poll(async () => (await browserRecord(page)).oscillatorsStarted).toBeGreaterThanOrEqual(2);
    await expectText(page, 'Keys: A answers (with live audio), R rejects, O opens the call, S silences the ring.');
    expect(await toast.locator('kbd').allTextContents()).toEqual(['A', 'R', 'O', 'S']);
    await screenshot(page, 'incoming-call');

    await toast.getByRole('button', { name: 'Notify me of calls on the desktop' }).click();
    expect((await browserRecord(page)).permissionAsks).toBe(1);
    await expect.poll(() => toast.getByRole('button', { name: 'Notify me of calls on the desktop' }).count()).toBe(0);

    // A answers from the keyboard: the call opens with live audio both ways.
    await toast.focus();
    phone.resetReceived();
    await page.keyboard.press('a');
    await page.locator(`.call-page[data-call-id="${callId}"][data-state="active"]`).waitFor();
    const audio = page.locator('section', { hasText: 'Live audio' });
    await audio.getByText('Live', { exact: true }).waitFor();
    await audio.getByRole('button', { name: 'Stop talking' }).waitFor();
    await expect.poll(async () => Number(await audio.getByRole('meter', { name: 'Caller level' }).getAttribute('aria-valuenow')), { timeout: 5000 }).toBeGreaterThan(20);
    await expect.poll(() => phone.received.frames, { timeout: 5000 }).toBeGreaterThan(10);
    const record = await browserRecord(page);
    expect(record.oscillatorsStopped).toBe(record.oscillatorsStarted);
    expect(await page.evaluate(() => document.title)).toBe('Call · Voice Gateway');
  });

  it('keeps the focus on the hold button while the call goes on hold and back', async () => {
    const hold = page.getByRole('button', { name: 'Hold' });
    await hold.click();
    await page.locator('.call-page[data-state="held"]').waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Resume');
    await page.keyboard.press('Enter');
    await page.locator('.call-page[data-state="active"]').waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Hold');
    await page.getByRole('button', { name: 'Hang up' }).click();
    await page.locator('.call-page[data-state="ended"]').waitFor();
  });

  it('leaves the focus where someone is typing, and notifies the desktop while the console is in the background', async () => {
    await nav(page, 'Dialer');
    const number = page.getByLabel('Number');
    await number.focus();
    // The console is behind other windows: the browser says it does not have the focus.
    await page.evaluate(() => {
      document.hasFocus = () => false;
    });
    const callId = await phone.ringIncoming('+33 1 23 45 67 89');
    const toast = page.getByRole('region', { name: 'Incoming call from +33 1 23 45 67 89' });
    await toast.waitFor();
    await expect.poll(async () => (await browserRecord(page)).notifications).toEqual([{ title: 'Incoming call', body: '+33 1 23 45 67 89 on Pixel 8', tag: `call-${callId}`, closed: false }]);
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('INPUT');
    await page.keyboard.type('r');
    expect(await number.inputValue()).toBe('r');
    expect(await state(callId)).toBe('ringing');

    await toast.focus();
    await page.keyboard.press('r');
    await expect.poll(() => state(callId)).toBe('rejected');
    await expect.poll(() => toast.count()).toBe(0);
    expect((await browserRecord(page)).notifications[0]?.closed).toBe(true);
  });

  it('says what is wrong with a number before sending it, and dials what people type', async () => {
    await page.goto(`${g.url}/dialer`);
    const number = page.getByLabel('Number');
    await number.fill('call me maybe');
    await page.getByRole('button', { name: 'Call', exact: true }).click();
    const field = page.locator('.field', { hasText: 'Number' });
    await expect.poll(() => field.getByRole('alert').textContent()).toBe('The number can hold only digits, +, *, # and the pauses , and ; (not "c", "a", "l", "m", "e", "y", "b").');
    expect(phone.commands.filter((c) => c.action === 'dial')).toHaveLength(0);
    await screenshot(page, 'dialer-check');

    await number.fill('+49 (30) 1234-567');
    await expectText(page, 'Dials +49301234567');
    await page.getByRole('button', { name: 'Call', exact: true }).click();
    await page.getByRole('heading', { name: '+49301234567', level: 1 }).waitFor();
    expect(phone.commands.filter((c) => c.action === 'dial').map((c) => c.payload)).toEqual([{ to: '+49301234567' }]);
    await page.getByRole('button', { name: 'Hang up' }).click();
    await page.locator('.call-page[data-state="ended"]').waitFor();
  });

  it('shows why each call ended and how long it lasted, and finds calls by number and date', async () => {
    const outcomes: Array<['busy' | 'no-answer' | 'failed' | 'answer', string]> = [
      ['busy', '+49 30 9876543'],
      ['no-answer', '+49 40 7654321'],
      ['failed', '+1 415 555 0100'],
      ['answer', '+33 6 12 34 56 78'],
    ];
    for (const [outcome, to] of outcomes) {
      phone.dial = { outcome, ringMs: 20, failReason: 'no service' };
      const placed = await g.api<{ call: { id: string } }>('POST', '/v1/calls', { deviceId: phone.deviceId, to });
      const id = placed.body.call.id;
      await expect.poll(() => state(id)).not.toMatch(/^(queued|dialing)$/);
      if (outcome === 'answer') {
        phone.remoteHangup();
        await expect.poll(() => state(id)).toBe('ended');
      }
    }
    phone.dial = { outcome: 'manual', ringMs: 300, failReason: 'simulated failure' };

    await nav(page, 'Calls');
    const outcome = (number: string) => page.locator('tr', { hasText: number }).locator('td[data-label="Outcome"]');
    await expect.poll(() => outcome('+49309876543').textContent()).toBe('Busy');
    expect(await outcome('+4940765432').textContent()).toBe('No answer');
    expect(await outcome('+14155550100').textContent()).toBe('Failed: no service');
    expect(await outcome('+33612345678').textContent()).toBe('Hung up by the callee');
    expect(await outcome('+33 1 23 45 67 89').textContent()).toBe('Rejected here');
    expect(await outcome('+44 20 7946 0958').textContent()).toBe('Hung up here');
    expect(await page.locator('tr', { hasText: '+33612345678' }).locator('td[data-label="Duration"]').textContent()).toMatch(/^0:0\d$/);

    await page.getByLabel('Number', { exact: true }).fill('555 01');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    expect(await page.locator('tbody tr').textContent()).toContain('+14155550100');
    expect(page.url()).toContain('number=555+01');
    await screenshot(page, 'calls-search');

    await page.getByLabel('Number', { exact: true }).fill('Alice');
    await page.getByRole('button', { name: 'Search' }).click();
    await expectText(page, 'Search with digits, +, * or #; spaces, dashes and brackets are fine.');

    await page.getByRole('button', { name: 'Clear filters' }).click();
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    await page.getByLabel('To', { exact: true }).fill(yesterday);
    await expectText(page, 'No calls match these filters');
    await page.getByLabel('To', { exact: true }).fill('');
    await page.getByLabel('From', { exact: true }).fill(new Date().toISOString().slice(0, 10));
    await expect.poll(() => page.locator('tbody tr').count()).toBeGreaterThanOrEqual(6);
  });

  it('reads the assistant\'s messages as an inbox: unread marked, urgency shown, the call and its transcript a click away, a call back that fills the dialer', async () => {
    const calls = (await g.api<{ calls: Array<{ id: string; remoteNumber: string; direction: string }> }>('GET', '/v1/calls?direction=incoming')).body.calls;
    const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
    await g.store.db
      .insertInto('assistant_messages')
      .values([
        { call_id: calls[0]!.id, remote_number: calls[0]!.remoteNumber, caller_name: 'Dana Fischer', reason: 'The boiler is leaking; asks for a visit today.', callback_number: '+49 171 5550123', urgency: 'high', taken_at: at(3), read_at: null },
        { call_id: calls[1]!.id, remote_number: calls[1]!.remoteNumber, caller_name: 'Sam Okafor', reason: 'Wants a quote for a new bathroom.', callback_number: '+44 20 7946 0000', urgency: 'normal', taken_at: at(95), read_at: null },
      ])
      .execute();
    await g.store.db.insertInto('transcript_lines').values({ call_id: calls[0]!.id, role: 'caller', text: 'Hello, my boiler is leaking.', at: at(4) }).execute();

    await nav(page, 'Assistant');
    const inbox = page.locator('section', { has: page.getByRole('heading', { name: /^Messages/ }) });
    await inbox.getByRole('heading', { name: 'Messages (2 unread)' }).waitFor();
    const items = inbox.locator('li.message');
    expect(await items.evaluateAll((lis) => lis.map((li) => [li.getAttribute('data-call-id'), li.getAttribute('data-unread')]))).toEqual([
      [calls[0]!.id, 'true'],
      [calls[1]!.id, 'true'],
    ]);
    expect(await items.first().getByText('Urgent').count()).toBe(1);
    await screenshot(page, 'assistant-inbox', { fullPage: true });

    await items.first().getByRole('link', { name: 'Open the call and transcript' }).click();
    await page.locator(`.call-page[data-call-id="${calls[0]!.id}"]`).waitFor();
    expect(page.url()).toMatch(/#transcript$/);
    await page.getByText('Hello, my boiler is leaking.').waitFor();
    await expect
      .poll(() => page.evaluate(() => (document.getElementById('transcript')?.getBoundingClientRect().top ?? -1) < window.innerHeight))
      .toBe(true);

    await nav(page, 'Assistant');
    await inbox.getByRole('heading', { name: 'Messages (1 unread)' }).waitFor();
    expect(await items.first().getAttribute('data-unread')).toBe('false');
    await items.nth(1).getByRole('link', { name: 'Call back +44 20 7946 0000' }).click();
    await page.getByRole('heading', { name: 'Dialer', level: 1 }).waitFor();
    expect(await page.getByLabel('Number').inputValue()).toBe('+44 20 7946 0000');
  });

  it('left no uncaught errors in the page', () => {
    expect(errors).toEqual([]);
  });
});
