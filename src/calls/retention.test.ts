import { describe, expect, it } from 'vitest';
import { EndedCallRetention } from './retention.js';

describe('EndedCallRetention', () => {
  it('keeps the last calls that ended and evicts the oldest beyond the limit', () => {
    const evicted: string[] = [];
    const retention = new EndedCallRetention((id) => evicted.push(id), 3);
    for (const id of ['a', 'b', 'c']) retention.callEnded(id);
    expect(evicted).toEqual([]);
    retention.callEnded('d');
    retention.callEnded('b'); // ending again refreshes it
    retention.callEnded('e');
    expect(evicted).toEqual(['a', 'c']);
  });
});
