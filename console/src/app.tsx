import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { api, ApiError, setSignedOutHandler } from './api';
import { DevicesProvider, SessionContext, SettingsProvider, useSession, useSettings } from './context';
import { AssistantIcon, CallsIcon, CloseIcon, DialerIcon, KeyIcon, Logo, MenuIcon, PhoneIcon, SettingsIcon, UsersIcon, WebhookIcon } from './icons';
import { IncomingCalls } from './incoming';
import { live, useLiveStatus } from './live';
import { AssistantPage } from './pages/assistant';
import { CallPage } from './pages/call';
import { CallsPage } from './pages/calls';
import { DialerPage } from './pages/dialer';
import { KeysPage } from './pages/api-keys';
import { PhonesPage } from './pages/phones';
import { SettingsPage } from './pages/settings';
import { ResetPasswordPage, SetupPage, SignInPage } from './pages/sign-in';
import { UsersPage } from './pages/users';
import { WebhooksPage } from './pages/webhooks';
import { headingFocusRequested, Link, match, navigate, takeHeadingFocus, useLocation } from './router';
import { setPageTitle } from './title';
import type { User } from './types';
import { Button, Loading } from './ui';

type AuthState = { kind: 'loading' } | { kind: 'signed-in'; user: User } | { kind: 'signed-out'; setupRequired: boolean; notice?: string } | { kind: 'unreachable'; message: string };

export function App() {
  const [auth, setAuth] = useState<AuthState>({ kind: 'loading' });

  const check = useCallback(async (notice?: string) => {
    try {
      const me = await api.me();
      if (me.user) {
        setAuth({ kind: 'signed-in', user: me.user });
        return;
      }
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 401)) {
        setAuth({ kind: 'unreachable', message: err instanceof Error ? err.message : String(err) });
        return;
      }
    }
    try {
      const status = await api.authStatus();
      setAuth({ kind: 'signed-out', setupRequired: status.setupRequired, ...(notice ? { notice } : {}) });
    } catch (err) {
      setAuth({ kind: 'unreachable', message: err instanceof Error ? err.message : String(err) });
    }
  }, []);

  // A password reset link (`voice-gateway reset-password`) is opened signed out, or by someone else.
  const [resetToken, setResetToken] = useState(() => (window.location.pathname === '/reset-password' ? new URLSearchParams(window.location.search).get('token') : null));

  useEffect(() => {
    if (resetToken === null) void check();
  }, [check, resetToken]);

  useEffect(() => {
    const signedOut = () => {
      live.stop();
      setAuth((prev) => (prev.kind === 'signed-in' ? { kind: 'signed-out', setupRequired: false, notice: 'Your session has ended. Sign in again to continue.' } : prev));
    };
    setSignedOutHandler(signedOut);
    live.checkSession = () => {
      api.me().catch((err: unknown) => {
        if (err instanceof ApiError && err.status === 401) signedOut();
      });
    };
    return () => {
      setSignedOutHandler(null);
      live.checkSession = null;
    };
  }, []);

  useEffect(() => {
    if (auth.kind === 'signed-in') live.start();
    else live.stop();
  }, [auth.kind]);

  const signOut = useCallback(async () => {
    try {
      await api.logout();
    } finally {
      live.stop();
      setAuth({ kind: 'signed-out', setupRequired: false, notice: 'You are signed out.' });
    }
  }, []);

  if (resetToken !== null && auth.kind !== 'signed-in') {
    return (
      <ResetPasswordPage
        token={resetToken}
        onDone={(user) => {
          navigate('/calls', { replace: true });
          setResetToken(null);
          setAuth({ kind: 'signed-in', user });
        }}
      />
    );
  }
  if (auth.kind === 'loading') {
    return (
      <div className="center-screen">
        <Loading />
      </div>
    );
  }
  if (auth.kind === 'unreachable') {
    return (
      <div className="center-screen">
        <div className="auth-card">
          <h1>Cannot reach the gateway</h1>
          <p className="error-text" role="alert">
            {auth.message}
          </p>
          <Button variant="primary" onClick={() => void check()}>
            Try again
          </Button>
        </div>
      </div>
    );
  }
  if (auth.kind === 'signed-out') {
    const signedIn = (user: User) => setAuth({ kind: 'signed-in', user });
    return auth.setupRequired ? <SetupPage onDone={signedIn} /> : <SignInPage onDone={signedIn} notice={auth.notice} />;
  }
  return (
    <SessionContext.Provider value={{ user: auth.user, signOut }}>
      <DevicesProvider>
        <SettingsProvider>
          <Shell />
        </SettingsProvider>
      </DevicesProvider>
    </SessionContext.Provider>
  );
}

const NAV = [
  { to: '/calls', label: 'Calls', icon: <CallsIcon /> },
  { to: '/dialer', label: 'Dialer', icon: <DialerIcon /> },
  { to: '/phones', label: 'Phones', icon: <PhoneIcon /> },
  { to: '/assistant', label: 'Assistant', icon: <AssistantIcon /> },
  { to: '/webhooks', label: 'Webhooks', icon: <WebhookIcon /> },
  { to: '/api-keys', label: 'API keys', icon: <KeyIcon /> },
  { to: '/settings', label: 'Settings', icon: <SettingsIcon /> },
  { to: '/users', label: 'Users', icon: <UsersIcon /> },
] as const;

function route(path: string): { title: string; page: ReactNode } {
  if (path === '/' || path === '/calls') return { title: 'Calls', page: <CallsPage /> };
  const call = match('/calls/:id', path);
  if (call) return { title: 'Call', page: <CallPage key={call.id} callId={call.id!} /> };
  if (path === '/dialer') return { title: 'Dialer', page: <DialerPage /> };
  if (path === '/phones') return { title: 'Phones', page: <PhonesPage /> };
  if (path === '/assistant') return { title: 'Assistant', page: <AssistantPage /> };
  if (path === '/webhooks') return { title: 'Webhook deliveries', page: <WebhooksPage /> };
  if (path === '/api-keys') return { title: 'API keys', page: <KeysPage /> };
  if (path === '/settings') return { title: 'Settings', page: <SettingsPage /> };
  if (path === '/users') return { title: 'Users', page: <UsersPage /> };
  return {
    title: 'Not found',
    page: (
      <div className="not-found">
        <h1 tabIndex={-1}>Page not found</h1>
        <p>There is no page at {path}.</p>
        <Link to="/calls" className="btn btn-primary">
          Go to calls
        </Link>
      </div>
    ),
  };
}

function Shell() {
  const { path } = useLocation();
  const { user, signOut } = useSession();
  const [menuOpen, setMenuOpen] = useState(false);
  const status = useLiveStatus();
  const { title, page } = route(path);
  const shownPath = useRef(path);
  const mainRef = useRef<HTMLElement>(null);

  const { settings } = useSettings();

  useEffect(() => {
    setPageTitle(title);
  }, [title]);

  useEffect(() => {
    if (path === '/') navigate('/calls', { replace: true });
  }, [path]);

  useEffect(() => {
    setMenuOpen(false);
    if (shownPath.current === path) return;
    const redirect = shownPath.current === '/' && path === '/calls';
    shownPath.current = path;
    // Move focus to the new page's heading, so keyboard and screen reader users start there. A page
    // still loading focuses its heading when it appears (PageHeader).
    const heading = mainRef.current?.querySelector<HTMLElement>('h1');
    if (redirect) takeHeadingFocus();
    else if (heading && headingFocusRequested()) {
      takeHeadingFocus();
      heading.focus({ preventScroll: true });
    }
  }, [path]);

  useEffect(() => {
    if (!menuOpen) return;
    const close = (e: KeyboardEvent) => e.key === 'Escape' && setMenuOpen(false);
    window.addEventListener('keydown', close);
    return () => window.removeEventListener('keydown', close);
  }, [menuOpen]);

  const active = (to: string) => path === to || path.startsWith(`${to}/`) || (to === '/calls' && path === '/');
  const liveLabel = status === 'open' ? 'Live' : status === 'connecting' ? 'Connecting…' : 'Offline';

  return (
    <div className="shell">
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/calls" className="brand">
          <Logo /> <span>Voice Gateway</span>
        </Link>
        <span className={`live-dot live-${status}`} title={`Live updates: ${liveLabel}`}>
          <span className="sr-only">Live updates: {liveLabel}</span>
        </span>
        <button className="menu-button" aria-expanded={menuOpen} aria-controls="nav" onClick={() => setMenuOpen((v) => !v)}>
          {menuOpen ? <CloseIcon /> : <MenuIcon />}
          <span className="sr-only">Menu</span>
        </button>
      </header>
      <nav id="nav" className={`sidebar ${menuOpen ? 'open' : ''}`} aria-label="Main">
        <Link to="/calls" className="brand brand-sidebar">
          <Logo /> <span>Voice Gateway</span>
        </Link>
        <ul>
          {NAV.map((item) => (
            <li key={item.to}>
              <Link to={item.to} className={`nav-link ${active(item.to) ? 'active' : ''}`} aria-current={active(item.to) ? 'page' : undefined}>
                {item.icon}
                <span>{item.label}</span>
              </Link>
            </li>
          ))}
        </ul>
        <div className="sidebar-footer">
          <div className={`live-status live-${status}`} aria-live="polite">
            <span className="live-dot" aria-hidden="true" /> {liveLabel}
          </div>
          <div className="account">
            <span className="account-email" title={user.email}>
              {user.email}
            </span>
            <Button size="sm" variant="ghost" onClick={() => void signOut()}>
              Sign out
            </Button>
          </div>
          {settings?.docsUrl && (
            <a className="docs-link" href={settings.docsUrl} target="_blank" rel="noreferrer">
              Documentation ↗
            </a>
          )}
          <a className="docs-link" href="/docs" target="_blank" rel="noreferrer">
            API reference ↗
          </a>
        </div>
      </nav>
      {menuOpen && <div className="scrim" onClick={() => setMenuOpen(false)} aria-hidden="true" />}
      <main id="main" ref={mainRef} className="main">
        {/* Inside main: floating over the page on a wide screen, at the top of it on a phone (styles.css), so it covers no row there. */}
        <IncomingCalls currentPath={path} />
        {page}
      </main>
    </div>
  );
}
