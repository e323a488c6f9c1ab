import path from 'node:path';
import type { IssuedSetupToken } from '../accounts/index.js';
import type { Logger } from '../log.js';

/**
 * The setup token is shown to the operator (standard error, and its file) but never written to the
 * structured log, which is shipped and kept where a secret has no place; the log says only that a
 * token exists and where its file is. It stops working once the owner exists.
 */
export function announceFirstRun(log: Logger, url: string, firstRun: IssuedSetupToken, announce: ((text: string) => void) | undefined): void {
  const file = path.resolve(firstRun.file);
  const where = firstRun.saved ? `It is also in ${file} until the owner exists.` : `It could not be saved in ${file} (${firstRun.reason}).`;
  announce?.(
    `No console account yet. To create the owner, open ${url}/ and enter the setup token ${firstRun.token} (the HTTP_GATEWAY_API_KEY works too). ${where} ` +
      'ADMIN_EMAIL and ADMIN_PASSWORD create the owner at start instead.\n',
  );
  log.warn(
    { setupTokenFile: firstRun.saved ? file : null },
    `No console account yet: create the owner at ${url}/ with the setup token, ${firstRun.saved ? `kept in ${file}` : 'which could not be saved'}${announce ? ' and shown on standard error' : ''} until the owner exists (or set ADMIN_EMAIL and ADMIN_PASSWORD).`,
  );
}
