import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

// The one browser global a page.evaluate callback here touches (this project's types are Node's).
declare const window: { scrollTo(x: number, y: number): void };

export const CHROMIUM = '/usr/bin/chromium';
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Browser tests run when Debian's chromium is installed. Outside CI a machine without it skips them;
 * in CI (`CI` set) a missing browser fails the run instead of hiding the tests.
 */
export const browserAvailable = existsSync(CHROMIUM);
export const skipBrowser = !browserAvailable && !process.env.CI;

export function launchBrowser(): Promise<Browser> {
  if (!browserAvailable) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--autoplay-policy=no-user-gesture-required',
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
    ],
  });
}

/** Screenshots go to docs/screenshots with UPDATE_SCREENSHOTS=1 (`npm run screenshots`), else to test-results/. */
export const SCREENSHOT_DIR = process.env.UPDATE_SCREENSHOTS ? path.join(REPO_ROOT, 'docs/screenshots') : path.join(REPO_ROOT, 'test-results/screenshots');

export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  // Let transitions and the live-row flash settle, so the picture shows the resting page.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForTimeout(250);
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: options.fullPage ?? false, animations: 'disabled' });
}

/** Collects uncaught page errors, to assert that a journey left none. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  return errors;
}

/** Follows a link of the main navigation and waits for the new page's heading. */
export async function nav(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
  await page.getByRole('heading', { level: 1 }).first().waitFor();
}

export async function expectText(page: Page, text: string): Promise<void> {
  await page.getByText(text, { exact: false }).first().waitFor();
}

/** What the page did with the browser's sound and notifications, as `installRecorders` counts it. */
export interface BrowserRecord {
  oscillatorsStarted: number;
  oscillatorsStopped: number;
  permissionAsks: number;
  notifications: Array<{ title: string; body: string; tag: string; closed: boolean }>;
}

/**
 * Runs before the console's own scripts in every page of the context: counts Web Audio oscillators
 * started and stopped (the ring), and stands in for the Notification API (permission "default"
 * until asked, then "granted"), recording what the console shows. Headless Chromium has no
 * notification centre to look at, so the console's use of the API is what the tests observe.
 */
export async function installRecorders(context: BrowserContext): Promise<void> {
  await context.addInitScript({
    content: `(() => {
      const record = { oscillatorsStarted: 0, oscillatorsStopped: 0, permissionAsks: 0, notifications: [] };
      window.__vgRecord = record;
      const proto = OscillatorNode.prototype;
      const start = proto.start;
      const stop = proto.stop;
      proto.start = function (...args) { record.oscillatorsStarted += 1; return start.apply(this, args); };
      proto.stop = function (...args) { record.oscillatorsStopped += 1; return stop.apply(this, args); };
      let permission = 'default';
      window.Notification = class {
        static get permission() { return permission; }
        static requestPermission() { record.permissionAsks += 1; permission = 'granted'; return Promise.resolve(permission); }
        constructor(title, options = {}) {
          this.entry = { title, body: options.body ?? '', tag: options.tag ?? '', closed: false };
          record.notifications.push(this.entry);
          this.onclick = null;
        }
        close() { this.entry.closed = true; }
      };
    })();`,
  });
}

export function browserRecord(page: Page): Promise<BrowserRecord> {
  return page.evaluate('window.__vgRecord') as Promise<BrowserRecord>;
}

/** A browser context as the tests use the console: a desktop window in Berlin, 8 s for every wait, signed in with `cookie` when given. */
export async function consoleContext(browser: Browser, options: { url?: string; cookie?: string } = {}): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 840 }, locale: 'en-GB', timezoneId: 'Europe/Berlin' });
  context.setDefaultTimeout(8000);
  if (options.cookie && options.url) {
    const [name, value] = options.cookie.split('=') as [string, string];
    await context.addCookies([{ name, value, url: options.url }]);
  }
  return context;
}
