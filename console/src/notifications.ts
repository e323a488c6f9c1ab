import { useSyncExternalStore } from 'react';

/**
 * Desktop notifications of ringing calls. Permission is asked only when the person chooses to turn
 * them on (a button on the ringing toast, or in Settings, under This browser), never on load.
 */
export type NotificationState = 'unsupported' | NotificationPermission;

const supported = typeof window !== 'undefined' && 'Notification' in window;
const listeners = new Set<() => void>();
const shown = new Map<string, Notification>();

export const permission = (): NotificationState => (supported ? Notification.permission : 'unsupported');

export const useNotificationPermission = (): NotificationState =>
  useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    permission,
  );

/** Asks the browser; call it from a click. */
export async function requestNotifications(): Promise<NotificationState> {
  if (!supported) return 'unsupported';
  await Notification.requestPermission();
  listeners.forEach((l) => l());
  return permission();
}

/**
 * Shows the ringing call, unless the console is in front of the person already (visible and
 * focused, where the toast and the ring are enough). Clicking it brings the tab forward.
 */
export function notifyRinging(callId: string, title: string, body: string, onClick: () => void): void {
  if (permission() !== 'granted' || shown.has(callId)) return;
  if (document.visibilityState === 'visible' && document.hasFocus()) return;
  const note = new Notification(title, { body, tag: `call-${callId}`, requireInteraction: true });
  note.onclick = () => {
    window.focus();
    onClick();
    note.close();
  };
  shown.set(callId, note);
}

export function closeNotification(callId: string): void {
  shown.get(callId)?.close();
  shown.delete(callId);
}
