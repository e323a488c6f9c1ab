/** The API key a request presents: `Authorization: Bearer <key>` or `x-api-key: <key>`. */
export function credentialFrom(headers: { get(name: string): string | null | undefined }): string | null {
  const authorization = headers.get('authorization');
  if (authorization) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    return m?.[1] ?? null;
  }
  const key = headers.get('x-api-key');
  return key ? key.trim() : null;
}
