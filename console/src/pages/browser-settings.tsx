import { requestNotifications, useNotificationPermission } from '../notifications';
import { prefs, usePrefs } from '../prefs';
import { Badge, Button, Card, Toggle } from '../ui';

/** Choices of this browser only: the ring and desktop notifications of incoming calls. */
export function BrowserCard() {
  const { ringSound } = usePrefs();
  const notifications = useNotificationPermission();
  return (
    <Card title="This browser" id="browser">
      <p className="muted small">How this browser tells you about incoming calls. Other browsers and people keep their own choices.</p>
      <Toggle
        label="Ring when a call comes in"
        hint="Plays a ring while a call rings, on every page of the console. The browser lets it sound once you have clicked or typed in the console."
        checked={ringSound}
        onChange={(v) => prefs.set({ ringSound: v })}
      />
      <div className="toggle-row">
        <div>
          <span className="toggle-label">Desktop notifications</span>
          <p className="hint">A notification for each ringing call while the console is in the background.</p>
          {notifications === 'denied' && (
            <p className="hint" data-testid="unblock-notifications">
              To unblock them, open the site information beside the address (the icon left of it), set <strong>Notifications</strong> to{' '}
              <strong>Allow</strong>, then reload this page.
            </p>
          )}
        </div>
        {notifications === 'granted' ? (
          <Badge tone="green">On</Badge>
        ) : notifications === 'denied' ? (
          <Badge tone="amber">Blocked by this browser</Badge>
        ) : notifications === 'unsupported' ? (
          <Badge tone="gray">Not supported by this browser</Badge>
        ) : (
          <Button size="sm" onClick={() => void requestNotifications()}>
            Turn on
          </Button>
        )}
      </div>
    </Card>
  );
}
