import { useState, type FormEvent, type ReactNode } from 'react';
import { api, ApiError } from '../api';
import { Logo } from '../icons';
import { LIMITS } from '../limits';
import type { User } from '../types';
import { Button, ErrorText, TextField } from '../ui';

function AuthFrame({ title, intro, children }: { title: string; intro: ReactNode; children: ReactNode }) {
  return (
    <div className="center-screen auth-screen">
      <main className="auth-card">
        <div className="auth-brand">
          <Logo /> <span>Voice Gateway</span>
        </div>
        <h1>{title}</h1>
        <div className="auth-intro">{intro}</div>
        {children}
      </main>
    </div>
  );
}

/**
 * A form that sets a new password, typed twice (the first run's, a reset link's): `send` runs once
 * both are the same.
 */
function useNewPasswordForm(send: (password: string) => Promise<{ user: User }>, onDone: (user: User) => void) {
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [mismatch, setMismatch] = useState(false);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (password !== confirm) {
      setMismatch(true);
      return;
    }
    setMismatch(false);
    setBusy(true);
    setError(null);
    send(password).then(
      (r) => onDone(r.user),
      (err: ApiError) => {
        setBusy(false);
        setError(err);
      },
    );
  };
  return { password, setPassword, confirm, setConfirm, busy, error, mismatch, submit };
}

function NewPassword({ form, label, autoFocus }: { form: ReturnType<typeof useNewPasswordForm>; label: string; autoFocus?: boolean }) {
  return (
    <>
      <TextField
        label={label}
        type="password"
        name="new-password"
        autoComplete="new-password"
        required
        autoFocus={autoFocus}
        minLength={LIMITS.passwordMinLength}
        maxLength={LIMITS.passwordMaxLength}
        hint={`At least ${LIMITS.passwordMinLength} characters.`}
        value={form.password}
        onChange={(e) => form.setPassword(e.target.value)}
        error={form.error?.field('password')}
      />
      <TextField
        label="Repeat the password"
        type="password"
        name="confirm-password"
        autoComplete="new-password"
        required
        value={form.confirm}
        onChange={(e) => form.setConfirm(e.target.value)}
        error={form.mismatch ? 'The two passwords differ.' : undefined}
      />
    </>
  );
}

export function SignInPage({ onDone, notice }: { onDone: (user: User) => void; notice?: string | undefined }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | Error | null>(null);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    api.login(email, password).then(
      (r) => onDone(r.user),
      (err: ApiError) => {
        setBusy(false);
        setError(err);
      },
    );
  };
  const fieldError = error instanceof ApiError ? error : null;
  return (
    <AuthFrame title="Sign in" intro={<p>Sign in to manage your phones and calls.</p>}>
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      <form onSubmit={submit} noValidate className="stack">
        <TextField label="Email" type="email" name="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} error={fieldError?.field('email')} autoFocus />
        <TextField label="Password" type="password" name="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} error={fieldError?.field('password')} />
        <Button type="submit" variant="primary" busy={busy} className="btn-block">
          Sign in
        </Button>
        {error && !fieldError?.issues.length && <ErrorText error={error} />}
      </form>
      <p className="auth-footnote">
        Forgot the password? Whoever runs the gateway can make you a one-time link on the server: <code>npx voice-gateway reset-password &lt;your email&gt;</code>.
      </p>
    </AuthFrame>
  );
}

export function SetupPage({ onDone }: { onDone: (user: User) => void }) {
  const [setupToken, setSetupToken] = useState('');
  const [email, setEmail] = useState('');
  const form = useNewPasswordForm((password) => api.setup(email, password, setupToken), onDone);
  const { error, busy } = form;
  return (
    <AuthFrame
      title="Welcome"
      intro={
        <p>
          This gateway has no account yet. Create the <strong>owner</strong> account: it signs in to this console and can add other users later.
          To prove that you run this gateway, paste its <strong>setup token</strong>.
        </p>
      }
    >
      <form onSubmit={form.submit} noValidate className="stack">
        <TextField
          label="Setup token"
          name="setup-token"
          autoComplete="off"
          spellCheck={false}
          required
          hint={
            <>
              The gateway prints it on standard error at start (<code>No console account yet…</code>), not in its log, and keeps it in <code>DATA_DIR/setup-token</code>. Its{' '}
              <code>HTTP_GATEWAY_API_KEY</code> works too.
            </>
          }
          value={setupToken}
          onChange={(e) => setSetupToken(e.target.value)}
          error={error?.field('setupToken')}
          autoFocus
        />
        <TextField label="Email" type="email" name="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} error={error?.field('email')} />
        <NewPassword form={form} label="Password" />
        <Button type="submit" variant="primary" busy={busy} className="btn-block">
          Create owner account
        </Button>
        {error && !error.issues.length && <ErrorText error={error} />}
        {error?.code === 'CONFLICT' && (
          <Button variant="ghost" onClick={() => window.location.reload()}>
            Go to sign-in
          </Button>
        )}
      </form>
    </AuthFrame>
  );
}

/** The page a password reset link opens (`voice-gateway reset-password <email>` prints it). */
export function ResetPasswordPage({ token, onDone }: { token: string; onDone: (user: User) => void }) {
  const form = useNewPasswordForm((password) => api.resetPassword(token, password), onDone);
  const { error, busy } = form;
  return (
    <AuthFrame title="Choose a new password" intro={<p>This link works once. The new password ends every session of the account; you are signed in with it.</p>}>
      <form onSubmit={form.submit} noValidate className="stack">
        <NewPassword form={form} label="New password" autoFocus />
        <Button type="submit" variant="primary" busy={busy} className="btn-block">
          Set the password and sign in
        </Button>
        {error?.field('token') ? (
          <p className="error-text" role="alert">
            This link has expired or was used already. Ask whoever runs the gateway for a new one (<code>npx voice-gateway reset-password &lt;email&gt;</code>).
          </p>
        ) : (
          error && !error.issues.length && <ErrorText error={error} />
        )}
      </form>
    </AuthFrame>
  );
}
