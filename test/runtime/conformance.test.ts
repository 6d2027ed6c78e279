import { describe, expect, it } from 'vitest';
import { defineConformance } from 'tessera-runtime/testing';

// A toy extension point: a counter store. Two implementations run the same suite.
interface Counter {
  add(n: number): void;
  total(): number;
}

const counterConformance = defineConformance<Counter>('counter', {
  'starts at zero': (c) => {
    expect(c.total()).toBe(0);
  },
  'adds what it is given': (c) => {
    c.add(2);
    c.add(3);
    expect(c.total()).toBe(5);
  },
});

const made: string[] = [];
counterConformance('plain', () => {
  let total = 0;
  made.push('plain');
  return { add: (n) => (total += n), total: () => total };
});
counterConformance(
  'log-backed',
  async () => {
    const log: number[] = [];
    made.push('log');
    return { add: (n) => log.push(n), total: () => log.reduce((a, b) => a + b, 0) };
  },
  { skip: { 'starts at zero': 'shown as skipped with its reason' } },
);

describe('defineConformance', () => {
  it('lists its cases, gives each case a fresh subject, and refuses to skip a case it does not have', () => {
    expect(counterConformance.cases).toEqual(['starts at zero', 'adds what it is given']);
    expect(counterConformance.suiteName).toBe('counter');
    expect(made).toEqual(['plain', 'plain', 'log']);
    expect(() => counterConformance('broken', () => ({ add: () => undefined, total: () => 0 }), { skip: { 'no such case': 'x' } })).toThrow(
      'counter conformance has no case "no such case" to skip (cases: starts at zero; adds what it is given)',
    );
  });
});
