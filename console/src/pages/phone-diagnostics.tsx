import { useState } from 'react';
import { api } from '../api';
import { ago, fullTime } from '../format';
import { useLive } from '../live';
import type { Diagnostics } from '../types';
import { Badge, CopyButton, ErrorText, Loading, useLoad, useNow } from '../ui';

type Report = Diagnostics['report'];
type Check = NonNullable<Report['checks']>[number];

const CHECK_LABELS: Record<string, string> = {
  dialer_role: 'Default dialer (phone role)',
  battery_exemption: 'Left out of battery optimisation',
  foreground_service: 'Foreground service running',
  gateway_socket: 'Connected to the gateway',
  helper: 'Audio helper running',
  self_test: 'Self-test ran',
};

const TRIGGERS: Record<string, string> = {
  manual: 'run on the phone',
  helper_started: 'after the audio helper started',
  helper_report: 'after the audio helper tried a capture or injection',
};

const checkLabel = (name: string): string =>
  CHECK_LABELS[name] ?? (name.startsWith('permission:') ? `Permission ${name.slice('permission:'.length).replace(/^android\.permission\./, '')}` : name);

/** App version, phone and Android, as a bug report starts. */
function phoneLine(r: Report): string {
  const device = [r.device?.manufacturer, r.device?.model].filter(Boolean).join(' ');
  const android = r.device?.release ? `Android ${r.device.release}${r.device.sdk !== undefined ? ` (SDK ${r.device.sdk})` : ''}` : 'Android ?';
  return `app ${r.app?.version ?? '?'}, ${device || 'unknown phone'}, ${android}`;
}

/** The first line of a bug report: what a reader needs before the JSON. */
export const reportHeader = (d: Diagnostics): string => `Voice Gateway self-test: ${phoneLine(d.report)}, received ${d.receivedAt}`;

/** What "Copy for a bug report" puts on the clipboard: the header line, then the whole report as JSON. */
export const bugReportText = (d: Diagnostics): string => `${reportHeader(d)}\n${JSON.stringify(d, null, 2)}\n`;

/**
 * The phone's latest self-test (GET /v1/devices/{id}/diagnostics), on its card, folded until asked
 * for: each check with ok or failed, the audio helper's attempts, and a copy for a bug report. It is
 * read again when the phone changes (a new report comes with a `device` live message).
 */
export function PhoneDiagnostics({ deviceId }: { deviceId: string }) {
  const [open, setOpen] = useState(false);
  return (
    <details className="phone-diagnostics" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>Self-test report</summary>
      {open && <DiagnosticsBody deviceId={deviceId} />}
    </details>
  );
}

function DiagnosticsBody({ deviceId }: { deviceId: string }) {
  const { data, error, loading, reload } = useLoad(() => api.diagnostics(deviceId), [deviceId]);
  const now = useNow(10_000);
  useLive((m) => {
    if (m.type === 'device' && m.deviceId === deviceId) void reload();
  });
  if (error) return <ErrorText error={error} />;
  if (!data) return loading ? <Loading /> : null;
  const d = data.diagnostics;
  if (!d) {
    return (
      <p className="muted small" data-testid="no-diagnostics">
        This phone has not sent a self-test yet. The app sends one after each start of its audio helper; tap <strong>Run the self-test</strong> on its
        status screen to send one now.
      </p>
    );
  }
  const r = d.report;
  const attempts = r.helper?.diagnostics?.attempts ?? [];
  const helperFacts = Object.entries(r.helper?.diagnostics ?? {}).filter(([k, v]) => k !== 'attempts' && (typeof v !== 'object' || v === null));
  return (
    <div className="diagnostics" data-testid="diagnostics">
      <p className="small">
        Received <time title={fullTime(d.receivedAt)}>{ago(d.receivedAt, now)}</time>
        {r.trigger ? `, ${TRIGGERS[r.trigger] ?? r.trigger}` : ''}: {phoneLine(r)}.
      </p>
      <ul className="checks">
        {(r.checks ?? []).map((c, i) => (
          <CheckRow key={`${c.name}-${i}`} check={c} />
        ))}
      </ul>
      {r.helper && (
        <>
          <h4>Audio helper</h4>
          <dl className="facts small">
            <div>
              <dt>State</dt>
              <dd>{r.helper.state ?? '—'}</dd>
            </div>
            <div>
              <dt>Uid</dt>
              <dd>{r.helper.uid ?? 'unknown'}</dd>
            </div>
            {r.helper.problem && (
              <div>
                <dt>Problem</dt>
                <dd>{r.helper.problem}</dd>
              </div>
            )}
            {helperFacts.map(([k, v]) => (
              <div key={k}>
                <dt>{k}</dt>
                <dd className="mono">{String(v)}</dd>
              </div>
            ))}
          </dl>
          {attempts.length > 0 ? (
            <table className="attempts small">
              <caption>Capture and injection ways tried, in order</caption>
              <thead>
                <tr>
                  <th scope="col">Way</th>
                  <th scope="col">Result</th>
                  <th scope="col">Exception</th>
                  <th scope="col">Message</th>
                </tr>
              </thead>
              <tbody>
                {attempts.map((a, i) => (
                  <tr key={i}>
                    <td className="mono">{a.way}</td>
                    <td>
                      <Badge tone={a.result === 'opened' ? 'green' : 'red'}>{a.result}</Badge>
                    </td>
                    <td className="mono">{a.exception ?? ''}</td>
                    <td>{a.message ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p className="muted small">The helper has tried no capture or injection yet.</p>
          )}
        </>
      )}
      <CopyButton text={bugReportText(d)} label="Copy for a bug report" />
    </div>
  );
}

function CheckRow({ check }: { check: Check }) {
  const tone = check.ok === true ? 'green' : check.ok === false ? 'red' : 'gray';
  const word = check.ok === true ? 'ok' : check.ok === false ? 'failed' : 'unknown';
  return (
    <li data-check={check.name}>
      <Badge tone={tone}>{word}</Badge> {checkLabel(check.name)}
      {check.detail && <span className="muted small"> — {check.detail}</span>}
    </li>
  );
}
