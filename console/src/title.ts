/**
 * The tab's title: the page's own ("Calls · Voice Gateway"), or, while calls ring, what rings, so a
 * ringing call shows in a background tab too.
 */
let page = 'Voice Gateway';
let alert: string | null = null;

const apply = (): void => {
  document.title = alert ?? page;
};

export function setPageTitle(title: string): void {
  page = `${title} · Voice Gateway`;
  apply();
}

export function setAlertTitle(title: string | null): void {
  alert = title;
  apply();
}
