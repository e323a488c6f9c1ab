import type { ReactNode } from 'react';

function Icon({ children, size = 18 }: { children: ReactNode; size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" focusable="false">
      {children}
    </svg>
  );
}

export const CallsIcon = () => (
  <Icon>
    <path d="M8 6h13M8 12h13M8 18h13M3.5 6h.01M3.5 12h.01M3.5 18h.01" />
  </Icon>
);
export const DialerIcon = () => (
  <Icon>
    {[5, 12, 19].flatMap((y) => [5, 12, 19].map((x) => <circle key={`${x}-${y}`} cx={x} cy={y} r="1.6" />))}
  </Icon>
);
export const PhoneIcon = () => (
  <Icon>
    <rect x="6.5" y="2" width="11" height="20" rx="2.5" />
    <path d="M11 18h2" />
  </Icon>
);
export const AssistantIcon = () => (
  <Icon>
    <path d="M12 3l1.9 5.1L19 10l-5.1 1.9L12 17l-1.9-5.1L5 10l5.1-1.9z" />
    <path d="M19 16l.8 2.2L22 19l-2.2.8L19 22l-.8-2.2L16 19l2.2-.8z" />
  </Icon>
);
export const WebhookIcon = () => (
  <Icon>
    <path d="M22 2L11 13" />
    <path d="M22 2l-7 20-4-9-9-4z" />
  </Icon>
);
export const KeyIcon = () => (
  <Icon>
    <circle cx="7.5" cy="15.5" r="4.5" />
    <path d="M10.7 12.3L21 2M16 7l3 3M18.5 4.5l2.5 2.5" />
  </Icon>
);
export const SettingsIcon = () => (
  <Icon>
    <path d="M4 21v-7M4 10V3M12 21v-9M12 8V3M20 21v-5M20 12V3M1 14h6M9 8h6M17 16h6" />
  </Icon>
);
export const UsersIcon = () => (
  <Icon>
    <path d="M17 21v-2a4 4 0 0 0-4-4H5a4 4 0 0 0-4 4v2" />
    <circle cx="9" cy="7" r="4" />
    <path d="M23 21v-2a4 4 0 0 0-3-3.87M16 3.13a4 4 0 0 1 0 7.75" />
  </Icon>
);
export const MenuIcon = () => (
  <Icon size={22}>
    <path d="M3 6h18M3 12h18M3 18h18" />
  </Icon>
);
export const CloseIcon = () => (
  <Icon size={22}>
    <path d="M18 6L6 18M6 6l12 12" />
  </Icon>
);
export const IncomingIcon = () => (
  <Icon size={16}>
    <path d="M17 7L7 17M7 8v9h9" />
  </Icon>
);
export const OutgoingIcon = () => (
  <Icon size={16}>
    <path d="M7 17L17 7M8 7h9v9" />
  </Icon>
);
export const Logo = () => (
  <svg width="28" height="28" viewBox="0 0 32 32" aria-hidden="true" focusable="false">
    <rect width="32" height="32" rx="8" fill="var(--accent)" />
    <path
      d="M11.6 8.5c.6-.6 1.6-.6 2.2.1l1.9 2.4c.5.6.4 1.5-.1 2.1l-1.2 1.2a11 11 0 0 0 3.3 3.3l1.2-1.2c.6-.5 1.5-.6 2.1-.1l2.4 1.9c.7.6.7 1.6.1 2.2l-1.3 1.3c-1 1-2.6 1.3-3.9.7a19 19 0 0 1-8.9-8.9c-.6-1.3-.3-2.9.7-3.9z"
      fill="#fff"
    />
  </svg>
);
