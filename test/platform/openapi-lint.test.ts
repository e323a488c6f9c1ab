import { createConfig, lintFromString } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

interface Operation {
  operationId?: string;
  tags?: string[];
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  tags?: Array<{ name: string; description?: string }>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/**
 * Generated clients (openapi-typescript, the MCP server's tools, other people's generators) name their methods after
 * operationId, so these names are part of the API: renaming one breaks somebody's code.
 */
const STABLE_IDS: Record<string, string> = {
  'POST /v1/calls': 'createCall',
  'GET /v1/calls': 'listCalls',
  'GET /v1/calls/{callId}': 'getCall',
  'GET /v1/calls/{callId}/events': 'listCallEvents',
  'GET /v1/calls/{callId}/transcript': 'getCallTranscript',
  'POST /v1/calls/{callId}/answer': 'answerCall',
  'POST /v1/calls/{callId}/reject': 'rejectCall',
  'POST /v1/calls/{callId}/hangup': 'hangupCall',
  'POST /v1/calls/{callId}/hold': 'holdCall',
  'POST /v1/calls/{callId}/unhold': 'unholdCall',
  'POST /v1/calls/{callId}/dtmf': 'sendDtmf',
  'GET /v1/calls/{callId}/agent': 'getCallAgent',
  'POST /v1/calls/{callId}/agent': 'startCallAgent',
  'DELETE /v1/calls/{callId}/agent': 'stopCallAgent',
  'GET /v1/agent/messages': 'listAgentMessages',
  'GET /v1/devices': 'listDevices',
  'GET /v1/webhook-deliveries': 'listWebhookDeliveries',
  'POST /v1/webhook-deliveries/{id}/retry': 'retryWebhookDelivery',
};

describe('the OpenAPI document for generators', () => {
  let g: TestGateway;
  let text: string;
  let doc: Document;
  let ops: Array<{ name: string; op: Operation }>;

  beforeAll(async () => {
    g = await startTestGateway();
    const res = await g.api<Document>('GET', '/openapi.json', undefined, { key: null });
    expect(res.status).toBe(200);
    text = res.text;
    doc = res.body;
    ops = Object.entries(doc.paths).flatMap(([path, item]) => METHODS.filter((m) => item[m]).map((m) => ({ name: `${m.toUpperCase()} ${path}`, op: item[m]! })));
  });
  afterAll(async () => {
    await g.stop();
  });

  it('names every operation once, in camelCase', () => {
    expect(ops.length).toBeGreaterThanOrEqual(48);
    expect(ops.filter(({ op }) => !op.operationId).map((o) => o.name)).toEqual([]);
    const ids = ops.map(({ op }) => op.operationId!);
    expect(ids.filter((id) => !/^[a-z][a-zA-Z0-9]*$/.test(id))).toEqual([]);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  it('keeps the names clients were generated with', () => {
    const actual = Object.fromEntries(Object.keys(STABLE_IDS).map((name) => [name, ops.find((o) => o.name === name)?.op.operationId]));
    expect(actual).toEqual(STABLE_IDS);
  });

  it('has no generic {action} operation: each call action is its own', () => {
    expect(Object.keys(doc.paths).filter((p) => p.includes('{action}'))).toEqual([]);
  });

  it('groups every operation under a declared tag', () => {
    const declared = new Set((doc.tags ?? []).map((t) => t.name));
    expect((doc.tags ?? []).filter((t) => !t.description)).toEqual([]);
    expect(ops.filter(({ op }) => op.tags?.length !== 1 || !declared.has(op.tags[0]!)).map((o) => `${o.name} ${JSON.stringify(o.op.tags)}`)).toEqual([]);
  });

  it('lints with no error under Redocly\'s recommended rules', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: text, absoluteRef: `${g.url}/openapi.json`, config });
    const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? '?'}`);
    expect(errors).toEqual([]);
    // The warnings left are known and deliberate: WebSocket upgrades answer 101 (no 2XX) and the open health routes have no 4XX.
    const warnings = problems.filter((p) => p.severity === 'warn').map((p) => p.ruleId);
    expect(new Set(warnings)).toEqual(new Set(['operation-2xx-response', 'operation-4xx-response']));
  });
});
