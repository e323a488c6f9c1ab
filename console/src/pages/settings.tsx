import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { api, type ApiError, type SettingsPatch } from '../api';
import { useSession, useSettings } from '../context';
import { STREAM_FORMAT_OPTIONS } from '../format';
import type { SecretInfo, Settings } from '../types';
import { Badge, Button, Card, CopyButton, ErrorText, Loading, PageHeader, SelectField, TextField } from '../ui';
import { BrowserCard } from './browser-settings';

type PlainKey = 'publicUrl' | 'webhookUrl' | 'docsUrl' | 'incomingStreamUrl' | 'incomingStreamFormat' | 'assistantModel';

/** The environment variable behind each plain setting (README, Configuration). */
const ENV_NAMES: Record<PlainKey, string> = {
  publicUrl: 'PUBLIC_URL',
  webhookUrl: 'WEBHOOK_URL',
  docsUrl: 'DOCS_URL',
  incomingStreamUrl: 'INCOMING_STREAM_URL',
  incomingStreamFormat: 'INCOMING_STREAM_FORMAT',
  assistantModel: 'ASSISTANT_MODEL',
};
/** What the gateway does when neither the console nor the environment sets a value. */
const DEFAULTS: Partial<Record<PlainKey, string>> = { incomingStreamFormat: 'raw', assistantModel: 'gpt-realtime' };

/** Where the saved value of a setting comes from, in words. */
function Source({ settings, field }: { settings: Settings; field: PlainKey }) {
  const source = settings.sources[field];
  const text =
    source === 'console'
      ? `Set in the console; cleared, it falls back to ${ENV_NAMES[field]} or the default.`
      : source === 'env'
        ? `From the environment (${ENV_NAMES[field]}).`
        : DEFAULTS[field]
          ? `Not set: the gateway's default, ${DEFAULTS[field]}, applies.`
          : 'Not set.';
  return (
    <span className={`source source-${source}`} data-source={source}>
      {text}
    </span>
  );
}

export function SettingsPage() {
  const { settings, error, setSettings } = useSettings();
  // Settings redirect trust (where phones, reset links and call events go): only the owner changes them (the API answers 403 to others).
  const readOnly = useSession().user.role !== 'owner';
  useEffect(() => {
    if (!settings || !window.location.hash) return;
    document.getElementById(window.location.hash.slice(1))?.scrollIntoView();
  }, [settings]);
  if (!settings) return error ? <ErrorText error={error} /> : <Loading />;
  const saved = (s: Settings) => setSettings(s);
  return (
    <>
      <PageHeader title="Settings" description="Saved here, a setting wins over the server's environment; cleared, it falls back to it." />
      {readOnly && (
        <p className="notice" role="note">
          Only the owner of this gateway changes these settings, since they decide where calls, their audio and sign-in links go. You can see them.
        </p>
      )}
      <div className="settings">
        <Section
          id="addresses"
          title="Addresses"
          settings={settings}
          onSaved={saved}
          readOnly={readOnly}
          fields={[
            { key: 'publicUrl', label: 'Public address', placeholder: 'https://gateway.example.com', hint: 'Where phones reach this gateway; goes into pairing codes.' },
            { key: 'webhookUrl', label: 'Webhook URL', placeholder: 'https://example.com/hooks/voice', hint: 'Receives every call event, unless a call names its own.' },
            { key: 'docsUrl', label: 'Documentation URL', placeholder: 'https://docs.example.com', hint: 'A link for your team to your own documentation.' },
          ]}
        />
        <Section
          id="incoming"
          title="Incoming calls"
          settings={settings}
          onSaved={saved}
          readOnly={readOnly}
          fields={[
            { key: 'incomingStreamUrl', label: 'Incoming stream URL', placeholder: 'wss://agent.example.com/voice', hint: 'When set, incoming calls are answered after about a second and streamed here.' },
            { key: 'incomingStreamFormat', label: 'Stream format', options: STREAM_FORMAT_OPTIONS },
          ]}
        />
        <Section
          id="assistant"
          title="Assistant model"
          settings={settings}
          onSaved={saved}
          readOnly={readOnly}
          fields={[{ key: 'assistantModel', label: 'Model', placeholder: 'gpt-realtime', hint: 'The voice model the assistant talks through.' }]}
        >
          {readOnly ? (
            <p>
              <span className="label-like">Model API key</span> <SecretStatus info={settings.assistantApiKey} />
            </p>
          ) : (
            <SecretField
            name="assistantApiKey"
            label="Model API key"
            info={settings.assistantApiKey}
            placeholder="sk-…"
            onSaved={saved}
            hint="Stored encrypted; only its last four characters are ever shown."
            saveLabel="Save key"
            />
          )}
        </Section>
        <WebhookSecretCard info={settings.webhookSecret} onSaved={saved} readOnly={readOnly} />
        <BrowserCard />
      </div>
    </>
  );
}

interface PlainField {
  key: PlainKey;
  label: string;
  placeholder?: string;
  hint?: string;
  options?: Array<[string, string]>;
}

function Section({
  id,
  title,
  settings,
  fields,
  onSaved,
  readOnly,
  children,
}: {
  id: string;
  title: string;
  settings: Settings;
  fields: PlainField[];
  onSaved: (s: Settings) => void;
  readOnly: boolean;
  children?: ReactNode;
}) {
  const initial = () => Object.fromEntries(fields.map((f) => [f.key, settings[f.key] ?? ''])) as Record<PlainKey, string>;
  const [form, setForm] = useState(initial);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [done, setDone] = useState(false);
  const changed = fields.filter((f) => form[f.key] !== (settings[f.key] ?? ''));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const patch: SettingsPatch = {};
    for (const f of changed) patch[f.key] = form[f.key].trim();
    setBusy(true);
    setError(null);
    api.saveSettings(patch).then(
      (r) => {
        setBusy(false);
        setDone(true);
        onSaved(r.settings);
        setForm(Object.fromEntries(fields.map((f) => [f.key, r.settings[f.key] ?? ''])) as Record<PlainKey, string>);
      },
      (err: ApiError) => {
        setBusy(false);
        setError(err);
      },
    );
  };
  return (
    <Card title={title} id={id}>
      <form onSubmit={submit} className="stack" noValidate aria-label={title}>
        {fields.map((f) =>
          f.options ? (
            <SelectField key={f.key} label={f.label} name={f.key} value={form[f.key]} disabled={readOnly} hint={<Hint text={f.hint} settings={settings} field={f.key} />} error={error?.field(f.key)} onChange={(e) => setForm({ ...form, [f.key]: e.target.value })}>
              {f.options.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </SelectField>
          ) : (
            <TextField
              key={f.key}
              label={f.label}
              name={f.key}
              placeholder={f.placeholder}
              hint={<Hint text={f.hint} settings={settings} field={f.key} />}
              value={form[f.key]}
              readOnly={readOnly}
              error={error?.field(f.key)}
              onChange={(e) => {
                setDone(false);
                setForm({ ...form, [f.key]: e.target.value });
              }}
            />
          ),
        )}
        {!readOnly && (
          <div className="form-actions">
            <Button type="submit" variant="primary" busy={busy} disabled={changed.length === 0}>
              Save
            </Button>
            {done && changed.length === 0 && (
              <span className="saved" role="status">
                ✓ Saved
              </span>
            )}
            {error && !error.issues.length && <ErrorText error={error} />}
          </div>
        )}
      </form>
      {children}
    </Card>
  );
}

function Hint({ text, settings, field }: { text: string | undefined; settings: Settings; field: PlainKey }) {
  return (
    <>
      {text && <>{text} </>}
      <Source settings={settings} field={field} />
    </>
  );
}

function SecretStatus({ info }: { info: SecretInfo }) {
  if (!info.configured) return <Badge tone="amber">Not set</Badge>;
  const source = info.source === 'env' ? 'from the environment' : info.source === 'generated' ? 'generated by the gateway' : 'saved in the console';
  return (
    <span className="secret-status">
      <Badge tone="green">Set</Badge>{' '}
      <span className="muted small">
        ending in <span className="mono">{info.hint}</span>, {source}
      </span>
    </span>
  );
}

function SecretField({
  name,
  label,
  info,
  placeholder,
  hint,
  onSaved,
  showStatus = true,
  saveLabel = 'Save',
}: {
  name: 'assistantApiKey' | 'webhookSecret';
  label: string;
  info: SecretInfo;
  placeholder: string;
  hint: string;
  onSaved: (s: Settings) => void;
  showStatus?: boolean;
  saveLabel?: string;
}) {
  const [value, setValue] = useState('');
  const [busy, setBusy] = useState<'save' | 'clear' | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const save = (next: string, which: 'save' | 'clear') => {
    setBusy(which);
    setError(null);
    api.saveSettings({ [name]: next }).then(
      (r) => {
        setBusy(null);
        setValue('');
        onSaved(r.settings);
      },
      (err: ApiError) => {
        setBusy(null);
        setError(err);
      },
    );
  };
  return (
    <form
      className="stack secret-form"
      noValidate
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault();
        save(value.trim(), 'save');
      }}
    >
      <div className="secret-head">
        <span className="label-like">{label}</span> {showStatus && <SecretStatus info={info} />}
      </div>
      <TextField label={info.configured ? 'Replace with' : 'Set to'} type="password" autoComplete="off" placeholder={placeholder} value={value} onChange={(e) => setValue(e.target.value)} error={error?.field(name)} hint={hint} />
      <div className="form-actions">
        <Button type="submit" busy={busy === 'save'} disabled={!value.trim()}>
          {saveLabel}
        </Button>
        {info.configured && info.source === 'console' && (
          <Button variant="ghost" busy={busy === 'clear'} onClick={() => save('', 'clear')}>
            Clear
          </Button>
        )}
        {error && !error.issues.length && <ErrorText error={error} />}
      </div>
    </form>
  );
}

function WebhookSecretCard({ info, onSaved, readOnly }: { info: SecretInfo; onSaved: (s: Settings) => void; readOnly: boolean }) {
  const [secret, setSecret] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const rotate = () => {
    setBusy(true);
    setError(null);
    api
      .rotateWebhookSecret()
      .then(async (r) => {
        setSecret(r.secret);
        onSaved((await api.settings()).settings);
      })
      .catch((err: unknown) => setError(err))
      .finally(() => {
        setBusy(false);
        setAsking(false);
      });
  };
  return (
    <Card title="Webhook signing" id="webhook-secret">
      <p className="muted small">Every webhook is signed with this secret (Standard Webhooks), so your receiver can check it came from this gateway.</p>
      <p>
        <SecretStatus info={info} />
      </p>
      {readOnly ? null : secret ? (
        <div className="reveal" role="status">
          <p>
            <strong>Your new signing secret.</strong> Copy it into your webhook receiver now: it will not be shown again.
          </p>
          <div className="copy-line">
            <code className="secret-value" data-testid="new-secret">
              {secret}
            </code>
            <CopyButton text={secret} />
          </div>
          <Button size="sm" variant="ghost" onClick={() => setSecret(null)}>
            Done
          </Button>
        </div>
      ) : asking ? (
        <div className="confirm asking" role="group" aria-label="Rotate the webhook secret">
          <span className="confirm-question">Receivers that check signatures reject webhooks until they have the new secret.</span>
          <Button variant="danger" size="sm" busy={busy} onClick={rotate}>
            Rotate now
          </Button>
          <Button size="sm" variant="ghost" onClick={() => setAsking(false)}>
            Cancel
          </Button>
        </div>
      ) : (
        <Button onClick={() => setAsking(true)}>Rotate secret</Button>
      )}
      <ErrorText error={error} />
      {!readOnly && (
        <SecretField name="webhookSecret" label="Your own secret" info={info} placeholder="whsec_…" hint="Or paste a secret of your own: whsec_ followed by base64." onSaved={onSaved} showStatus={false} saveLabel="Save secret" />
      )}
    </Card>
  );
}
