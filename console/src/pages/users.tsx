import { useState, type FormEvent } from 'react';
import { api, type ApiError } from '../api';
import { useSession } from '../context';
import { ago, fullTime } from '../format';
import { LIMITS } from '../limits';
import { Badge, Button, Card, ConfirmButton, ErrorText, Loading, PageHeader, TextField, useLoad, useNow } from '../ui';

export function UsersPage() {
  const { user: me } = useSession();
  const { data, error, setData } = useLoad(() => api.users(), []);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [addError, setAddError] = useState<ApiError | null>(null);
  const [added, setAdded] = useState<string | null>(null);
  const now = useNow(30_000);
  const owner = me.role === 'owner';

  const add = (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setAddError(null);
    setAdded(null);
    api.addUser(email.trim(), password).then(
      (r) => {
        setBusy(false);
        setEmail('');
        setPassword('');
        setAdded(r.user.email);
        setData({ users: [...(data?.users ?? []), r.user] });
      },
      (err: ApiError) => {
        setBusy(false);
        setAddError(err);
      },
    );
  };

  return (
    <>
      <PageHeader title="Users" description="People who can sign in to this console. Everyone can do everything here, except that only the owner adds and removes users." />
      {owner && (
        <Card title="Add a user" id="add-user">
          <form onSubmit={add} className="inline-form" noValidate>
            <TextField label="Email" type="email" autoComplete="off" value={email} onChange={(e) => setEmail(e.target.value)} error={addError?.field('email')} />
            <TextField
              label="Password"
              type="password"
              autoComplete="new-password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              error={addError?.field('password')}
              hint={`At least ${LIMITS.passwordMinLength} characters; tell it to them yourself.`}
            />
            <Button type="submit" variant="primary" busy={busy} disabled={!email.trim() || !password}>
              Add user
            </Button>
          </form>
          {addError && !addError.issues.length && <ErrorText error={addError} />}
          {added && (
            <p className="saved" role="status">
              ✓ {added} can sign in now.
            </p>
          )}
        </Card>
      )}
      <Card title="Accounts" id="accounts">
        {error ? (
          <ErrorText error={error} />
        ) : !data ? (
          <Loading />
        ) : (
          <div className="table-wrap flat">
            <table className="table">
              <caption className="sr-only">Console users</caption>
              <thead>
                <tr>
                  <th scope="col">Email</th>
                  <th scope="col">Role</th>
                  <th scope="col">Added</th>
                  <th scope="col">Last sign-in</th>
                  <th scope="col">
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.users.map((u) => (
                  <tr key={u.id}>
                    <td data-label="Email">
                      {u.email} {u.id === me.id && <span className="muted small">(you)</span>}
                    </td>
                    <td data-label="Role">{u.role === 'owner' ? <Badge tone="purple">Owner</Badge> : <Badge>Member</Badge>}</td>
                    <td data-label="Added">
                      <time title={fullTime(u.createdAt)}>{ago(u.createdAt, now)}</time>
                    </td>
                    <td data-label="Last sign-in">{u.lastLoginAt ? <time title={fullTime(u.lastLoginAt)}>{ago(u.lastLoginAt, now)}</time> : <span className="muted">Never</span>}</td>
                    <td className="actions-cell">
                      {owner && u.role !== 'owner' && u.id !== me.id && (
                        <ConfirmButton
                          label="Remove"
                          question={`Remove ${u.email}? They are signed out at once.`}
                          onConfirm={() => api.removeUser(u.id).then(() => setData({ users: data.users.filter((x) => x.id !== u.id) }))}
                        />
                      )}
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
