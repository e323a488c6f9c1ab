import { useState, type FormEvent } from 'react';
import { api, type ApiError } from '../api';
import { useSession } from '../context';
import { ago, fullTime } from '../format';
import { KeyIcon } from '../icons';
import { LIMITS } from '../limits';
import type { ApiKey } from '../types';
import { Button, Card, ConfirmButton, CopyButton, Empty, ErrorText, Loading, PageHeader, TextField, useLoad, useNow } from '../ui';

export function KeysPage() {
  const { data, error, setData } = useLoad(() => api.apiKeys(), []);
  // Keys act with the owner's powers: only the owner makes and revokes them (the API answers 403 to others).
  const owner = useSession().user.role === 'owner';
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [createError, setCreateError] = useState<ApiError | null>(null);
  const [created, setCreated] = useState<ApiKey | null>(null);
  const now = useNow(30_000);

  const create = (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setCreateError(null);
    api.createApiKey(name.trim()).then(
      (r) => {
        setBusy(false);
        setName('');
        setCreated(r.apiKey);
        const { key: _key, ...listed } = r.apiKey;
        setData({ apiKeys: [listed, ...(data?.apiKeys ?? [])] });
      },
      (err: ApiError) => {
        setBusy(false);
        setCreateError(err);
      },
    );
  };
  const revoke = (id: string) =>
    api.revokeApiKey(id).then(() => {
      setData({ apiKeys: (data?.apiKeys ?? []).filter((k) => k.id !== id) });
      if (created?.id === id) setCreated(null);
    });

  return (
    <>
      <PageHeader title="API keys" description="Keys for your applications to use the REST interface. Make one per application, so each can be revoked on its own." />
      {!owner && (
        <p className="notice" role="note">
          Only the owner of this gateway makes and revokes API keys, since a key can do everything the owner can. You can see which keys exist.
        </p>
      )}
      {owner && (
        <Card title="New key" id="new-key">
          <form onSubmit={create} className="inline-form" noValidate>
            <TextField
              label="Name"
              placeholder="CRM integration"
              maxLength={LIMITS.apiKeyNameMaxLength}
              value={name}
              onChange={(e) => setName(e.target.value)}
              error={createError?.field('name')}
              hint="Who or what uses the key."
            />
            <Button type="submit" variant="primary" busy={busy} disabled={!name.trim()}>
              Create key
            </Button>
          </form>
          {createError && !createError.issues.length && <ErrorText error={createError} />}
          {created?.key && (
            <div className="reveal" role="status">
              <p>
                <strong>Copy your new key now.</strong> It is shown this once; the gateway keeps only its hash.
              </p>
              <div className="copy-line">
                <code className="secret-value" data-testid="new-key">
                  {created.key}
                </code>
                <CopyButton text={created.key} />
              </div>
              <p className="muted small">
                Send it as <code>Authorization: Bearer &lt;key&gt;</code> or <code>x-api-key: &lt;key&gt;</code>.
              </p>
              <Button size="sm" variant="ghost" onClick={() => setCreated(null)}>
                Done
              </Button>
            </div>
          )}
        </Card>
      )}
      <Card title="Keys" id="keys">
        {error ? (
          <ErrorText error={error} />
        ) : !data ? (
          <Loading />
        ) : data.apiKeys.length === 0 ? (
          <Empty title="No API keys yet" icon={<KeyIcon />}>
            {owner ? 'Create one above to call the API from your own code.' : 'The owner makes keys for applications.'} The key in the server's environment (HTTP_GATEWAY_API_KEY), if set, always works too.
          </Empty>
        ) : (
          <div className="table-wrap flat">
            <table className="table">
              <caption className="sr-only">API keys</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Key</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col">
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.apiKeys.map((k) => (
                  <tr key={k.id} data-key-id={k.id}>
                    <td data-label="Name">{k.name}</td>
                    <td data-label="Key" className="mono">
                      {k.prefix}…
                    </td>
                    <td data-label="Created">
                      <time title={fullTime(k.createdAt)}>{ago(k.createdAt, now)}</time>
                    </td>
                    <td data-label="Last used">{k.lastUsedAt ? <time title={fullTime(k.lastUsedAt)}>{ago(k.lastUsedAt, now)}</time> : <span className="muted">Never</span>}</td>
                    <td className="actions-cell">
                      {owner && <ConfirmButton label="Revoke" question={`Revoke “${k.name}”? Requests with it fail at once.`} onConfirm={() => revoke(k.id)} />}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Card>
    </>
  );
}
