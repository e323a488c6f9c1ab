import { useEffect, useRef, useState, type FormEvent } from 'react';
import { api, APP_DOWNLOAD_PATH, appQrSrc, type ApiError } from '../api';
import { useDevices } from '../context';
import { ago, AUDIO_LABELS, clockTime, duration, fullTime, NETWORK_LABELS } from '../format';
import { PhoneIcon } from '../icons';
import { useLive, useLiveStatus, type LiveStatus } from '../live';
import { Link } from '../router';
import { PhoneDiagnostics } from './phone-diagnostics';
import type { Device, Pairing } from '../types';
import { Badge, Button, Card, ConfirmButton, CopyButton, Empty, ErrorText, Loading, PageHeader, TextField, useNow } from '../ui';

export function PhonesPage() {
  const { devices, loaded, reload } = useDevices();
  const [pairing, setPairing] = useState(false);
  const now = useNow(5000);
  return (
    <>
      <PageHeader
        title="Phones"
        description="The Android phones that carry your calls."
        actions={
          !pairing && (
            <Button variant="primary" onClick={() => setPairing(true)}>
              Pair a phone
            </Button>
          )
        }
      />
      {pairing && <PairPanel onClose={() => setPairing(false)} known={devices.map((d) => d.id)} />}
      {!loaded ? (
        <Loading />
      ) : devices.length === 0 ? (
        !pairing && (
          <Empty title="No phones yet" icon={<PhoneIcon />} action={<Button variant="primary" onClick={() => setPairing(true)}>Pair a phone</Button>}>
            Install the Voice Gateway app on an Android phone with a SIM, then scan the pairing code. The phone then places and answers calls for you.
          </Empty>
        )
      ) : (
        <div className="phone-grid">
          {devices.map((d) => (
            <PhoneCard key={d.id} device={d} now={now} onRemoved={() => void reload()} />
          ))}
        </div>
      )}
    </>
  );
}

function SignalBars({ signal }: { signal: number }) {
  return (
    <span className="signal" aria-label={`Signal ${signal} of 4`} role="img">
      {[1, 2, 3, 4].map((n) => (
        <span key={n} className={`bar ${n <= signal ? 'on' : ''}`} style={{ height: `${n * 25}%` }} />
      ))}
    </span>
  );
}

function Battery({ level, charging }: { level: number; charging: boolean | undefined }) {
  const tone = level <= 15 ? 'low' : level <= 35 ? 'mid' : 'ok';
  return (
    <span className="battery-wrap">
      <span className={`battery battery-${tone}`} aria-hidden="true">
        <span className="battery-fill" style={{ width: `${Math.max(4, level)}%` }} />
      </span>
      <span>
        {level}%{charging ? ' · charging' : ''}
      </span>
    </span>
  );
}

/**
 * Whether what the card shows is current: it is while the live channel is up and the phone is
 * connected. Otherwise the card says why not, and since when.
 */
function Freshness({ device, live, now }: { device: Device; live: LiveStatus; now: number }) {
  if (live !== 'open') {
    return (
      <p className="notice warn freshness" role="status">
        Live updates are {live === 'connecting' ? 'reconnecting' : 'off'}: this card shows the phone as it was last seen and may be out of date.
      </p>
    );
  }
  if (device.connected) return null;
  return (
    <p className="notice freshness" role="status">
      Offline {device.lastSeenAt ? <>since <time dateTime={device.lastSeenAt} title={fullTime(device.lastSeenAt)}>{ago(device.lastSeenAt, now)}</time></> : '(never connected)'}: calls cannot go out or come in
      through it until it reconnects.
    </p>
  );
}

/** "as of 14:05:12" under the health figures, when they may no longer hold. */
function HealthAsOf({ device, live, now }: { device: Device; live: LiveStatus; now: number }) {
  const at = device.health?.reportedAt ?? device.lastSeenAt;
  if (!at || (live === 'open' && device.connected)) return null;
  return (
    <p className="muted small health-as-of">
      Last known values, greyed: health as of <time dateTime={at} title={fullTime(at)}>{Date.now() - Date.parse(at) > 86_400_000 ? fullTime(at) : clockTime(at)}</time> ({ago(at, now)})
    </p>
  );
}

/** The phone's name, renamed in place (PATCH /v1/devices/{id}). */
function PhoneName({ device }: { device: Device }) {
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(device.name);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const renameRef = useRef<HTMLButtonElement>(null);
  const refocus = useRef(false);
  // Back on the Rename button once the form closes, so the keyboard is where it was.
  useEffect(() => {
    if (editing || !refocus.current) return;
    refocus.current = false;
    renameRef.current?.focus();
  }, [editing]);
  const close = () => {
    refocus.current = true;
    setEditing(false);
    setError(null);
  };
  if (!editing) {
    return (
      <div className="phone-name">
        <h2 id={`phone-${device.id}`}>{device.name}</h2>
        <Button
          ref={renameRef}
          size="sm"
          variant="ghost"
          aria-label={`Rename ${device.name}`}
          onClick={() => {
            setName(device.name);
            setEditing(true);
          }}
        >
          Rename
        </Button>
      </div>
    );
  }
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    api.renameDevice(device.id, name.trim()).then(
      () => {
        setBusy(false);
        close();
      },
      (err: ApiError) => {
        setBusy(false);
        setError(err);
      },
    );
  };
  return (
    <form className="inline-form phone-rename" onSubmit={submit} noValidate aria-label={`Rename ${device.name}`}>
      <h2 id={`phone-${device.id}`} className="sr-only">
        {device.name}
      </h2>
      <TextField label="Name" value={name} maxLength={120} autoFocus onChange={(e) => setName(e.target.value)} onKeyDown={(e) => e.key === 'Escape' && close()} error={error?.field('name')} />
      <Button type="submit" variant="primary" size="sm" busy={busy} disabled={!name.trim() || name.trim() === device.name}>
        Save
      </Button>
      <Button size="sm" variant="ghost" onClick={close}>
        Cancel
      </Button>
      {error && !error.issues.length && <ErrorText error={error} />}
    </form>
  );
}

function PhoneCard({ device, now, onRemoved }: { device: Device; now: number; onRemoved: () => void }) {
  const h = device.health;
  const live = useLiveStatus();
  const current = live === 'open';
  // What the card shows of an offline phone, or while the live channel is down, is its last report: greyed, with its age below.
  const stale = !device.connected || !current;
  return (
    <article className="card phone-card" data-device-id={device.id} aria-labelledby={`phone-${device.id}`}>
      <div className="phone-head">
        <div>
          <PhoneName device={device} />
          <p className="muted small">{[h?.model, h?.android && `Android ${h.android}`, h?.appVersion && `app ${h.appVersion}`].filter(Boolean).join(' · ') || device.id}</p>
        </div>
        <Badge tone={device.connected && current ? 'green' : 'gray'}>{device.connected ? (current ? 'Connected' : 'Last seen connected') : 'Offline'}</Badge>
      </div>
      <Freshness device={device} live={live} now={now} />
      <dl className={`phone-stats ${stale ? 'stale' : ''}`} data-stale={stale || undefined}>
        <div>
          <dt>Battery</dt>
          <dd>{h?.battery !== undefined ? <Battery level={h.battery} charging={h.charging} /> : '—'}</dd>
        </div>
        <div>
          <dt>Signal</dt>
          <dd>{h?.signal !== undefined ? <SignalBars signal={h.signal} /> : '—'}</dd>
        </div>
        <div>
          <dt>Network</dt>
          <dd>{h?.network ? NETWORK_LABELS[h.network] : '—'}</dd>
        </div>
        <div>
          <dt>Carrier</dt>
          <dd>{h?.carrier || '—'}</dd>
        </div>
        <div>
          <dt>Audio helper</dt>
          <dd>
            <AudioHelper health={h} stale={stale} />
          </dd>
        </div>
        <div>
          <dt>Latency</dt>
          <dd className="tabular">{device.latencyMs !== null ? `${device.latencyMs} ms` : '—'}</dd>
        </div>
        <div>
          <dt>Last seen</dt>
          <dd>{device.connected && current ? 'now' : device.lastSeenAt ? <time title={fullTime(device.lastSeenAt)}>{ago(device.lastSeenAt, now)}</time> : 'never'}</dd>
        </div>
        <div>
          <dt>Paired</dt>
          <dd>
            <time title={fullTime(device.registeredAt)}>{ago(device.registeredAt, now)}</time>
          </dd>
        </div>
      </dl>
      <HealthAsOf device={device} live={live} now={now} />
      {h?.audio && h.audio !== 'running' && <HelperHint stopped={h.audio === 'stopped'} />}
      <PhoneDiagnostics deviceId={device.id} />
      <div className="phone-actions">
        {device.connected ? (
          <Link to={`/dialer?deviceId=${encodeURIComponent(device.id)}`} className="btn btn-sm">
            Call from this phone
          </Link>
        ) : (
          <>
            <Button size="sm" disabled aria-describedby={`offline-${device.id}`}>
              Call from this phone
            </Button>
            <span className="muted small" id={`offline-${device.id}`}>
              It is offline: calls go out once it reconnects.
            </span>
          </>
        )}
        <Link to={`/calls?deviceId=${encodeURIComponent(device.id)}`} className="btn btn-sm btn-ghost">
          Calls
        </Link>
        <ConfirmButton label="Remove" question={`Remove ${device.name}? Its calls stay in the log.`} onConfirm={() => api.removeDevice(device.id).then(onRemoved)} />
      </div>
    </article>
  );
}

/** health.audio and, while it runs, what the helper can do (health.audioCapabilities). */
function AudioHelper({ health, stale }: { health: Device['health']; stale: boolean }) {
  if (!health?.audio) return <>—</>;
  const caps = health.audioCapabilities;
  // A last-known "Running" is not green: nobody knows whether it still runs.
  const tone = stale ? 'gray' : health.audio === 'running' ? 'green' : health.audio === 'stopped' ? 'amber' : 'red';
  return (
    <span className="helper-state">
      <Badge tone={tone}>{AUDIO_LABELS[health.audio]}</Badge>
      {health.audio === 'running' && caps && !caps.capture && (
        <Badge tone="red" title="This phone's Android cannot capture call audio for the helper">
          No call audio
        </Badge>
      )}
      {health.audio === 'running' && caps?.capture && !caps.inject && (
        <Badge tone="amber" title="The gateway hears the caller; audio sent into the call is discarded on the phone">
          Listen only
        </Badge>
      )}
    </span>
  );
}

/** How to start the audio helper, which only a computer with adb can do (docs/android.md). */
function HelperHint({ stopped }: { stopped: boolean }) {
  return (
    <p className="helper-hint small" role="note">
      {stopped ? 'The audio helper is not running: it stops when the phone restarts. ' : 'The audio helper has not been started on this phone yet. '}
      Calls work, but their audio does not reach the gateway. To start it, open the Voice Gateway app on the phone, tap{' '}
      <strong>Copy the start command</strong>, and run that command on a computer connected to the phone with <code>adb</code> (USB, or
      Wireless debugging after <code>adb pair</code> and <code>adb connect</code>).{' '}
      {stopped
        ? 'On Android 12 or later, once the app is paired with Wireless debugging, tap its "Call audio is off" notification and turn Wireless debugging on (or let it start by itself after the one-time grant shown in the app).'
        : 'On Android 12 or later no computer is needed: in the app, tap Pair with Wireless debugging and type the pairing code into its notification.'}
    </p>
  );
}

function PairPanel({ onClose, known }: { onClose: () => void; known: string[] }) {
  const [pairing, setPairing] = useState<Pairing | null>(null);
  const [publicUrl, setPublicUrl] = useState('');
  const [needsUrl, setNeedsUrl] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [paired, setPaired] = useState<Device | null>(null);
  const now = useNow(1000);
  const knownRef = useRef(new Set(known));

  const create = (url?: string) => {
    setBusy(true);
    setError(null);
    api.pairing(url).then(
      (p) => {
        setBusy(false);
        setPairing(p);
        setNeedsUrl(false);
      },
      (err: ApiError) => {
        setBusy(false);
        if (err.field('publicUrl') && !url) {
          setNeedsUrl(true);
          setPublicUrl(window.location.origin);
        } else setError(err);
      },
    );
  };

  useEffect(() => {
    create();
  }, []);

  useLive((m) => {
    if (m.type === 'device' && m.device && !knownRef.current.has(m.deviceId)) {
      knownRef.current.add(m.deviceId);
      setPaired(m.device);
    }
  });

  const submitUrl = (e: FormEvent) => {
    e.preventDefault();
    create(publicUrl.trim());
  };

  const left = pairing ? Date.parse(pairing.expiresAt) - now : 0;
  const expired = pairing !== null && left <= 0;

  return (
    <Card
      title="Pair a phone"
      id="pair"
      className="pair-card"
      actions={
        <Button size="sm" variant="ghost" onClick={onClose}>
          {paired ? 'Done' : 'Cancel'}
        </Button>
      }
    >
      {paired ? (
        <div className="paired" role="status">
          <span className="paired-check" aria-hidden="true">
            ✓
          </span>
          <p>
            <strong>{paired.name}</strong> is paired{paired.connected ? ' and connected' : ''}.
          </p>
        </div>
      ) : needsUrl ? (
        <form onSubmit={submitUrl} className="stack compact" noValidate>
          <p>The phone needs an address at which it reaches this gateway. No public address is saved yet.</p>
          <TextField
            label="Address of this gateway, as the phone sees it"
            type="url"
            value={publicUrl}
            onChange={(e) => setPublicUrl(e.target.value)}
            error={error?.field('publicUrl')}
            hint="For example https://gateway.example.com, or http://192.168.1.20:8080 on your own network. You can save it under Settings."
          />
          <Button type="submit" variant="primary" busy={busy}>
            Make a pairing code
          </Button>
          {error && !error.issues.length && <ErrorText error={error} />}
        </form>
      ) : !pairing ? (
        busy ? <Loading label="Making a pairing code…" /> : <ErrorText error={error} />
      ) : (
        <div className="pair-body">
          <section className="qr-column" aria-labelledby="pair-qr-title">
            <h3 id="pair-qr-title">Scan in the app</h3>
            <div className={`qr ${expired ? 'expired' : ''}`}>
              <img src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(pairing.qrSvg)}`} alt={`QR code to pair a phone with code ${pairing.code}`} width={220} height={220} />
            </div>
          </section>
          <InstallApp publicUrl={pairing.publicUrl} checkKey={pairing.code} />
          <div className="pair-info">
            <ol className="steps">
              <li>Install the Voice Gateway app: scan “Install the app” with the phone’s camera.</li>
              <li>Open the app and scan “Scan in the app”, or type the code by hand.</li>
            </ol>
            <p className="pair-code-label">Pairing code</p>
            <p className="pair-code mono" data-testid="pair-code">
              {pairing.code}
            </p>
            <p className={`countdown ${expired ? 'expired' : left < 60_000 ? 'soon' : ''}`} aria-live={left < 60_000 ? 'polite' : 'off'}>
              {expired ? 'This code has expired.' : <>Expires in <span className="tabular">{duration(left)}</span></>}
            </p>
            <p className="pair-code-label">Pair link</p>
            <div className="copy-line">
              <code className="break small" data-testid="pair-uri">
                {pairing.pairUri}
              </code>
              <CopyButton text={pairing.pairUri} />
            </div>
            <p className="muted small">The phone will reach the gateway at {pairing.publicUrl}.</p>
            <div className="inline-actions">
              <Button variant={expired ? 'primary' : 'secondary'} size="sm" busy={busy} onClick={() => create(pairing.publicUrl)}>
                New code
              </Button>
              <span className="waiting muted small">
                <span className="spinner" aria-hidden="true" /> Waiting for the phone…
              </span>
            </div>
            <ErrorText error={error} />
          </div>
        </div>
      )}
    </Card>
  );
}

/**
 * The app's download as a QR code beside the pairing code, at the address the phone uses. Whether
 * the gateway has the app is asked again with each new pairing code (after a build, "New code").
 */
function InstallApp({ publicUrl, checkKey }: { publicUrl: string; checkKey: string }) {
  const [built, setBuilt] = useState<boolean | null>(null);
  useEffect(() => {
    let current = true;
    api.appBuilt().then(
      (yes) => current && setBuilt(yes),
      () => current && setBuilt(false),
    );
    return () => {
      current = false;
    };
  }, [checkKey]);
  const url = `${publicUrl}${APP_DOWNLOAD_PATH}`;
  return (
    <section className="qr-column install-app" aria-labelledby="install-app-title">
      <h3 id="install-app-title">Install the app</h3>
      {built === null ? (
        <Loading label="Looking for the app…" />
      ) : built ? (
        <>
          <div className="qr qr-small">
            <img src={appQrSrc(publicUrl)} alt="QR code to download the Voice Gateway app" width={150} height={150} />
          </div>
          <p className="muted small">
            Scan with the phone’s camera, or open <a href={url} className="break">{url}</a> on the phone.
          </p>
        </>
      ) : (
        <p className="small" data-testid="app-not-built">
          The app is not built on this gateway yet. Run <code>npm run build:android</code> in the gateway’s folder (it needs a JDK), then make a new code.
        </p>
      )}
    </section>
  );
}
