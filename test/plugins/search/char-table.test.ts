import { describe, expect, it } from 'vitest';
import { CharTable, hashLowerAscii, hashString } from '../../../plugins/search/analysis/char-table.js';

describe('CharTable', () => {
  it('finds every key it was given, through growth, and no other, as a Map would', () => {
    const table = new CharTable();
    const reference = new Map<string, number>();
    let seed = 7;
    const random = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    for (let i = 0; i < 50_000; i++) {
      let key = '';
      for (let k = Math.floor(random() * 12); k > 0; k--) key += String.fromCharCode(97 + Math.floor(random() * 26));
      const h = hashString(key);
      const e = table.find(key, h);
      if (reference.has(key)) expect(table.value(e)).toBe(reference.get(key));
      else {
        expect(e).toBe(-1);
        table.insert(key, h, i);
        reference.set(key, i);
      }
    }
    expect(table.size).toBe(reference.size);
    for (const [key, value] of reference) expect(table.value(table.find(key, hashString(key)))).toBe(value);
    expect(table.find('not-a-key', hashString('not-a-key'))).toBe(-1);
  });

  it('looks a word up from a range of a text, lower-casing A-Z on the fly', () => {
    const table = new CharTable();
    table.insert('wing', hashString('wing'), 1);
    table.insert('café', hashString('café'), 2);
    const text = 'The WING and the Wings';
    expect(hashLowerAscii(text, 4, 8)).toBe(hashString('wing'));
    expect(table.value(table.findLowerAscii(text, 4, 8, hashLowerAscii(text, 4, 8)))).toBe(1);
    expect(table.findLowerAscii(text, 17, 22, hashLowerAscii(text, 17, 22))).toBe(-1);
    expect(table.value(table.find('café', hashString('café')))).toBe(2);
  });

  it('forgets everything on clear', () => {
    const table = new CharTable();
    table.insert('wing', hashString('wing'), 1);
    table.clear();
    expect([table.size, table.find('wing', hashString('wing'))]).toEqual([0, -1]);
    table.insert('wing', hashString('wing'), 3);
    expect(table.value(table.find('wing', hashString('wing')))).toBe(3);
  });
});
