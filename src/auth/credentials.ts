/**
 * The API key a request presents: `Authorization: Bearer <key>` or `x-api-key: <key>`. An
 * Authorization header of another scheme (the Basic credentials a proxy in front adds) is not ours
 * and does not hide x-api-key; a malformed Bearer one is presented as an empty, invalid key.
 */
export function credentialFrom(headers: { get(name: string): string | null | undefined }): string | null {
  const authorization = headers.get('authorization')?.trim();
  if (authorization && /^bearer(\s|$)/i.test(authorization)) return /^Bearer\s+(\S+)$/i.exec(authorization)?.[1] ?? '';
  const key = headers.get('x-api-key');
  return key ? key.trim() : null;
}
