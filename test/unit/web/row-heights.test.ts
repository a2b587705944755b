import { describe, expect, it } from 'vitest';
import { RowHeights } from '../../../web/src/transcript/row-heights.js';

describe('the virtual list’s row heights', () => {
  it('places rows by estimate until measured, and finds the row at an offset', () => {
    const rows = new RowHeights(50);
    rows.setCount(4);
    expect([0, 1, 2, 3, 4].map((i) => rows.offsetOf(i))).toEqual([0, 50, 100, 150, 200]);
    expect(rows.set(1, 80)).toBe(true);
    expect(rows.set(1, 80)).toBe(false);
    expect([0, 1, 2, 3, 4].map((i) => rows.offsetOf(i))).toEqual([0, 50, 130, 180, 230]);
    expect([-5, 0, 49, 50, 129, 130, 229, 500].map((y) => rows.indexAt(y))).toEqual([0, 0, 0, 1, 1, 2, 3, 3]);
    expect(rows.total()).toBe(230);
  });

  it('grows and shrinks with the list', () => {
    const rows = new RowHeights(10);
    rows.setCount(3);
    rows.set(2, 30);
    rows.setCount(5);
    expect(rows.total()).toBe(70);
    rows.setCount(2);
    expect(rows.total()).toBe(20);
    expect(rows.indexAt(1000)).toBe(1);
    expect(new RowHeights(10).indexAt(5)).toBe(0);
  });
});
