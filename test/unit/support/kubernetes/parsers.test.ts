import { describe, expect, it } from 'vitest';
import { matchesLabels, parseLabelSelector } from '../../../support/kubernetes/label-selector.js';
import { applyPatch } from '../../../support/kubernetes/patches.js';
import {
  cpuMillicores,
  formatKibibytes,
  formatNanocores,
  parseQuantity,
  wholeUnits,
} from '../../../support/kubernetes/quantity.js';

describe('Kubernetes quantities', () => {
  it('reads decimal and binary suffixes and exponents', () => {
    expect(cpuMillicores('500m')).toBe(500);
    expect(cpuMillicores('1')).toBe(1000);
    expect(cpuMillicores('1.5')).toBe(1500);
    expect(cpuMillicores('0.1')).toBe(100);
    expect(cpuMillicores('1u')).toBe(1);
    expect(cpuMillicores(2)).toBe(2000);
    expect(wholeUnits('1Gi')).toBe(2 ** 30);
    expect(wholeUnits('512Mi')).toBe(512 * 2 ** 20);
    expect(wholeUnits('1e9')).toBe(1e9);
    expect(wholeUnits('1E3')).toBe(1000);
    expect(wholeUnits('1G')).toBe(1e9);
    expect(wholeUnits('128974848')).toBe(128974848);
    expect(parseQuantity('12345678n')).toBeCloseTo(0.012345678);
    expect(() => parseQuantity('1 Gi')).toThrow(/quantities must match/);
    expect(() => parseQuantity('abc')).toThrow();
    expect(formatNanocores(12_345_678.4)).toBe('12345678n');
    expect(formatKibibytes(123_456 * 1024)).toBe('123456Ki');
  });
});

describe('label selectors', () => {
  const labels = { app: 'meetbot', tier: 'bot', 'meetbot.io/worker': 'w-1', shard: '7' };
  const matches = (selector: string) => matchesLabels(parseLabelSelector(selector), labels);

  it('follows the set-based grammar', () => {
    expect(matches('')).toBe(true);
    expect(matches('app=meetbot,tier==bot')).toBe(true);
    expect(matches('app = meetbot , tier != api')).toBe(true);
    expect(matches('meetbot.io/worker in (w-1,w-2)')).toBe(true);
    expect(matches('meetbot.io/worker notin (w-1)')).toBe(false);
    expect(matches('missing notin (x)')).toBe(true);
    expect(matches('missing!=x')).toBe(true);
    expect(matches('tier')).toBe(true);
    expect(matches('!tier')).toBe(false);
    expect(matches('shard>5,shard<8')).toBe(true);
    expect(matches('app=')).toBe(false);
    expect(matchesLabels(parseLabelSelector('empty='), { empty: '' })).toBe(true);
  });

  it('refuses what the API server refuses, with 400', () => {
    for (const bad of [
      'app in ()',
      'app in (a',
      'app=a b',
      '=x',
      'app==x==y',
      'Bad Key=x',
      `app=${'v'.repeat(64)}`,
    ]) {
      expect(() => parseLabelSelector(bad), bad).toThrow(expect.objectContaining({ code: 400 }));
    }
  });
});

describe('patches', () => {
  const pod = {
    metadata: { name: 'p', labels: { a: '1', 'x/y': '2' }, finalizers: ['one'] },
    spec: { containers: [{ name: 'bot', image: 'i:1', env: [{ name: 'A', value: '1' }] }] },
  };

  it('applies RFC 6902 JSON patches, with escaped pointers and a failing test', () => {
    expect(
      applyPatch('application/json-patch+json', pod, [
        { op: 'remove', path: '/metadata/labels/x~1y' },
        { op: 'add', path: '/metadata/finalizers/-', value: 'two' },
        { op: 'replace', path: '/spec/containers/0/image', value: 'i:2' },
        { op: 'copy', from: '/metadata/labels/a', path: '/metadata/labels/b' },
        { op: 'move', from: '/metadata/labels/a', path: '/metadata/labels/c' },
        { op: 'test', path: '/metadata/labels/c', value: '1' },
      ]),
    ).toEqual({
      metadata: { name: 'p', labels: { b: '1', c: '1' }, finalizers: ['one', 'two'] },
      spec: { containers: [{ name: 'bot', image: 'i:2', env: [{ name: 'A', value: '1' }] }] },
    });
    expect(() =>
      applyPatch('application/json-patch+json', pod, [{ op: 'test', path: '/metadata/name', value: 'q' }]),
    ).toThrow(expect.objectContaining({ code: 422 }));
    expect(() =>
      applyPatch('application/json-patch+json', pod, [{ op: 'remove', path: '/metadata/nope' }]),
    ).toThrow(expect.objectContaining({ code: 422 }));
    expect(pod.metadata.labels).toEqual({ a: '1', 'x/y': '2' });
  });

  it('applies merge patches (null deletes, lists replaced) and strategic merge patches (lists merged by key)', () => {
    expect(
      applyPatch('application/merge-patch+json', pod, {
        metadata: { labels: { a: null, z: '3' }, finalizers: ['two'] },
      }),
    ).toMatchObject({
      metadata: { labels: { 'x/y': '2', z: '3' }, finalizers: ['two'] },
    });
    const strategic = applyPatch('application/strategic-merge-patch+json', pod, {
      metadata: { finalizers: ['two'] },
      spec: { containers: [{ name: 'bot', env: [{ name: 'B', value: '2' }] }] },
    });
    expect(strategic).toMatchObject({
      metadata: { finalizers: ['one', 'two'] },
      spec: {
        containers: [
          {
            name: 'bot',
            image: 'i:1',
            env: [
              { name: 'A', value: '1' },
              { name: 'B', value: '2' },
            ],
          },
        ],
      },
    });
    const deleted = applyPatch('application/strategic-merge-patch+json', pod, {
      metadata: { '$deleteFromPrimitiveList/finalizers': ['one'] },
      spec: { containers: [{ name: 'bot', env: [{ name: 'A', $patch: 'delete' }] }] },
    });
    expect(deleted).toMatchObject({
      metadata: { finalizers: [] },
      spec: { containers: [{ name: 'bot', env: [] }] },
    });
    expect(() => applyPatch('application/apply-patch+yaml', pod, {})).toThrow(
      expect.objectContaining({ code: 415 }),
    );
  });
});
