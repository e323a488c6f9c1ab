import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { api } from './api';
import { useLive } from './live';
import type { Device, User } from './types';

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
