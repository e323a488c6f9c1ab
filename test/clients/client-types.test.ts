import { readFileSync } from 'node:fs';
import type { OpenAPI3 } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_SCHEMA_FILE, generateClientTypes } from '../../scripts/generate-client.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

describe('clients/typescript types', () => {
  let g: TestGateway;
  beforeAll(async () => {
    g = await startTestGateway();
  });
  afterAll(async () => {
    await g.stop();
  });

  it('are what openapi-typescript makes of the served /openapi.json (run `npx tsx scripts/generate-client.ts` if not)', async () => {
    const res = await g.api<OpenAPI3>('GET', '/openapi.json', undefined, { key: null });
    expect(res.status).toBe(200);
    const fresh = await generateClientTypes(res.body);
    const committed = readFileSync(CLIENT_SCHEMA_FILE, 'utf8');
    // Compared whole: any drift between the document and the committed types fails, with the diff.
    expect(committed, 'clients/typescript/src/schema.ts is stale: run `npx tsx scripts/generate-client.ts`').toBe(fresh);
  });
});
