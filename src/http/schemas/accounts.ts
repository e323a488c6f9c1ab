import { z } from '@hono/zod-openapi';
import { LIMITS } from '../../limits.js';
import { text, wellFormed } from '../../text.js';
import { DateTime } from './common.js';

export const Email = z
  .string()
  .trim()
  .max(LIMITS.emailMaxLength)
  .pipe(z.email({ error: 'must be an email address' }))
  .openapi({ type: 'string', format: 'email', maxLength: LIMITS.emailMaxLength, example: 'owner@example.com' });
export const Password = z
  .string()
  .check(wellFormed())
  .min(LIMITS.passwordMinLength, `must be at least ${LIMITS.passwordMinLength} characters`)
  .max(LIMITS.passwordMaxLength, `must be at most ${LIMITS.passwordMaxLength} characters`)
  .openapi({ example: 'correct horse battery staple' });

export const User = z
  .object({
    id: z.uuid(),
    email: z.string().openapi({ example: 'owner@example.com' }),
    role: z.enum(['owner', 'member']).openapi({ description: '`owner`: the first account, which manages the others' }),
    createdAt: DateTime,
    lastLoginAt: DateTime.nullable(),
  })
  .openapi('User');

export const Credentials = z.object({ email: Email, password: z.string().check(wellFormed()).min(1).max(LIMITS.passwordMaxLength) }).openapi('Credentials');
export const NewAccount = z.object({ email: Email, password: Password }).openapi('NewAccount');
export const OwnerSetup = NewAccount.extend({
  setupToken: text()
    .min(1)
    .max(200)
    .optional()
    .openapi({
      description:
        'Proof of control of the server: the one-time setup token the gateway prints on standard error at start (also in `DATA_DIR/setup-token`), ' +
        'or the `HTTP_GATEWAY_API_KEY` (or any API key, also accepted as `Authorization: Bearer`)',
      example: 'vgsetup_4f3Xk2…',
    }),
}).openapi('OwnerSetup');

export const PasswordReset = z
  .object({
    token: text()
      .min(1)
      .max(200)
      .openapi({ description: 'the token of the one-time link that `voice-gateway reset-password <email>` printed', example: 'vgreset_Qm9u…' }),
    password: Password,
  })
  .openapi('PasswordReset');

export const UserResponse = z.object({ user: User }).openapi('UserResponse');
export const Me = z
  .object({
    user: User.nullable().openapi({ description: 'the console user; null when an API key made the request' }),
    credential: z.enum(['session', 'api-key', 'environment-key']),
  })
  .openapi('Me');
export const AuthStatus = z
  .object({ setupRequired: z.boolean().openapi({ description: 'true while no account exists: the console shows its first-run page' }) })
  .openapi('AuthStatus');
export const UserList = z.object({ users: z.array(User) }).openapi('UserList');
export const UserIdParam = z.object({ id: text().min(1).max(100).openapi({ param: { name: 'id', in: 'path' } }) });
