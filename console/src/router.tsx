import { useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent, type ReactNode } from 'react';

/** A small history router: the console has a dozen flat routes and needs nothing more. */
const listeners = new Set<() => void>();
const notify = (): void => listeners.forEach((l) => l());

/**
 * Set when the person moves to another page (a link, or back and forward); the new page's heading
 * takes focus when it appears (PageHeader), which may be after its data has loaded.
 */
let headingFocusPending = false;
export const headingFocusRequested = (): boolean => headingFocusPending;
export function takeHeadingFocus(): boolean {
  const pending = headingFocusPending;
  headingFocusPending = false;
  return pending;
}

window.addEventListener('popstate', () => {
  headingFocusPending = true;
  notify();
});

const subscribe = (listener: () => void): (() => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};
const snapshot = (): string => window.location.pathname + window.location.search;

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === snapshot()) return;
  if (!options.replace && new URL(to, window.location.origin).pathname !== window.location.pathname) headingFocusPending = true;
  if (options.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  notify();
  if (!options.replace) window.scrollTo(0, 0);
}

export interface Location {
  path: string;
  query: URLSearchParams;
}

export function useLocation(): Location {
  const href = useSyncExternalStore(subscribe, snapshot);
  const url = new URL(href, window.location.origin);
  return { path: url.pathname, query: url.searchParams };
}

/** `pattern` such as `/calls/:id`; returns the parameters, or null when the path does not match. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split('/').filter(Boolean);
  const s = path.split('/').filter(Boolean);
  if (p.length !== s.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    const part = p[i]!;
    const seg = s[i]!;
    if (part.startsWith(':')) params[part.slice(1)] = decodeURIComponent(seg);
    else if (part !== seg) return null;
  }
  return params;
}

/** A query string from the set values, for links. */
export function withQuery(path: string, params: Record<string, string | undefined | null>): string {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) s.set(k, v);
  const text = s.toString();
  return text ? `${path}?${text}` : path;
}

type LinkProps = AnchorHTMLAttributes<HTMLAnchorElement> & { to: string; children: ReactNode };

export function Link({ to, onClick, ...rest }: LinkProps) {
  const handle = (e: MouseEvent<HTMLAnchorElement>): void => {
    onClick?.(e);
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  return <a href={to} onClick={handle} {...rest} />;
}
