import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { api } from './api';
import { useLive } from './live';
import type { Device, Settings, User } from './types';

interface SessionValue {
  user: User;
  signOut: () => Promise<void>;
}

export const SessionContext = createContext<SessionValue | null>(null);

export function useSession(): SessionValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside the signed-in app');
  return value;
}

interface DevicesValue {
  devices: Device[];
  loaded: boolean;
  reload: () => Promise<void>;
}

const DevicesContext = createContext<DevicesValue>({ devices: [], loaded: false, reload: () => Promise.resolve() });

/** The paired phones, kept current by the live channel; most pages name phones. */
export function DevicesProvider({ children }: { children: ReactNode }) {
  const [devices, setDevices] = useState<Device[]>([]);
  const [loaded, setLoaded] = useState(false);
  const reload = useCallback(
    () =>
      api.devices().then(
        (r) => {
          setDevices(r.devices);
          setLoaded(true);
        },
        () => setLoaded(true),
      ),
    [],
  );
  useEffect(() => {
    void reload();
  }, [reload]);
  useLive(
    (m) => {
      if (m.type !== 'device') return;
      setDevices((list) => {
        if (!m.device) return list.filter((d) => d.id !== m.deviceId);
        const device = m.device;
        return list.some((d) => d.id === device.id) ? list.map((d) => (d.id === device.id ? device : d)) : [...list, device];
      });
    },
    () => void reload(),
  );
  const value = useMemo(() => ({ devices, loaded, reload }), [devices, loaded, reload]);
  return <DevicesContext.Provider value={value}>{children}</DevicesContext.Provider>;
}

export const useDevices = (): DevicesValue => useContext(DevicesContext);

interface SettingsValue {
  /** The gateway's settings; null until loaded (or when they could not be). */
  settings: Settings | null;
  error: unknown;
  /** After a save: what the API answered. */
  setSettings: (settings: Settings) => void;
}

const SettingsContext = createContext<SettingsValue>({ settings: null, error: null, setSettings: () => undefined });

/**
 * The settings, loaded once for the whole console: the sidebar links to `docsUrl`, the call page
 * offers the assistant only with a key, the webhook log names the webhook. Reloaded after a reconnect.
 */
export function SettingsProvider({ children }: { children: ReactNode }) {
  const [settings, setSettings] = useState<Settings | null>(null);
  const [error, setError] = useState<unknown>(null);
  const reload = useCallback(
    () =>
      api.settings().then(
        (r) => {
          setSettings(r.settings);
          setError(null);
        },
        (err: unknown) => setError(err),
      ),
    [],
  );
  useEffect(() => {
    void reload();
  }, [reload]);
  useLive(() => undefined, () => void reload());
  const value = useMemo(() => ({ settings, error, setSettings }), [settings, error]);
  return <SettingsContext.Provider value={value}>{children}</SettingsContext.Provider>;
}

export const useSettings = (): SettingsValue => useContext(SettingsContext);
