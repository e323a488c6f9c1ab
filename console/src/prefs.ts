import { useSyncExternalStore } from 'react';

/** Choices of this browser (not of the gateway), kept in localStorage. */
export interface Prefs {
  /** Play a ring when a call comes in. */
  ringSound: boolean;
}

const KEY = 'vg.prefs';
const DEFAULTS: Prefs = { ringSound: true };
const listeners = new Set<() => void>();

function read(): Prefs {
  try {
    return { ...DEFAULTS, ...(JSON.parse(localStorage.getItem(KEY) ?? '{}') as Partial<Prefs>) };
  } catch {
    return DEFAULTS;
  }
}

let current = read();

export const prefs = {
  get: (): Prefs => current,
  set(patch: Partial<Prefs>): void {
    current = { ...current, ...patch };
    try {
      localStorage.setItem(KEY, JSON.stringify(current));
    } catch {
      // Private windows may refuse storage; the choice still holds for this tab.
    }
    listeners.forEach((l) => l());
  },
  subscribe(listener: () => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};

export const usePrefs = (): Prefs => useSyncExternalStore(prefs.subscribe, prefs.get);
