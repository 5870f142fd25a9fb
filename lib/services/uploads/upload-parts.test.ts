import { describe, expect, it } from 'vitest';
import { parsePartName, partsToAppend } from './upload-parts';

const parts = (...names: string[]) => names.map((name) => parsePartName(name)!);

describe('parsePartName', () => {
  it('reads "<first>-<last>" and refuses anything else', () => {
    expect(parsePartName('0-262143')).toEqual({ name: '0-262143', first: 0, last: 262143 });
    expect(parsePartName('5-4')).toBeNull();
    expect(parsePartName('data')).toBeNull();
    expect(parsePartName('1-2.tmp')).toBeNull();
    expect(parsePartName('-1-2')).toBeNull();
  });
});

describe('partsToAppend', () => {
  it('chains consecutive parts from what is held', () => {
    expect(partsToAppend(parts('0-99', '100-199', '200-249'), 100)).toEqual([
      { name: '100-199', range: { start: 0, end: 99 } },
      { name: '200-249', range: { start: 0, end: 49 } },
    ]);
  });

  it('reads only the unheld tail of a part the copy is inside of', () => {
    expect(partsToAppend(parts('0-99'), 40)).toEqual([{ name: '0-99', range: { start: 40, end: 99 } }]);
  });

  it('stops at a gap and ignores parts beyond it', () => {
    expect(partsToAppend(parts('0-99', '200-299'), 0)).toEqual([{ name: '0-99', range: { start: 0, end: 99 } }]);
  });

  it('prefers the overlapping part that reaches furthest (a chunk re-sent with more bytes)', () => {
    expect(partsToAppend(parts('0-99', '50-149', '100-129'), 0)).toEqual([
      { name: '0-99', range: { start: 0, end: 99 } },
      { name: '50-149', range: { start: 50, end: 99 } },
    ]);
  });

  it('has nothing to add when the copy is ahead of every part', () => {
    expect(partsToAppend(parts('0-99'), 100)).toEqual([]);
    expect(partsToAppend([], 0)).toEqual([]);
  });
});
