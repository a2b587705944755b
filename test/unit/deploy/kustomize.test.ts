import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { schemaProblems } from './kubernetes-schemas.js';
import {
  applyJsonPatch,
  type KubernetesObject,
  parseEnvFile,
  parseYamlDocuments,
  renderKustomization,
} from './kustomize.js';

/** The renderer the manifests test relies on: kustomize's behaviour where it is used, a refusal elsewhere. */
const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function project(files: Record<string, string>): string {
  const directory = mkdtempSync(join(tmpdir(), 'meetbot-kustomize-test-'));
  directories.push(directory);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(directory, name, '..'), { recursive: true });
    writeFileSync(join(directory, name), text);
  }
  return directory;
}

const HEADER = 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n';
const CONFIG_MAP =
  'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: app\ndata:\n  A: "1"\n';

describe('YAML as kubectl reads it (1.1)', () => {
  it('reads unquoted on/off/yes as booleans and 0755 as octal, which a ConfigMap then refuses', async () => {
    const [document] = parseYamlDocuments('a: on\nb: off\nc: yes\nd: 0755\ne: "on"\n', 'test');
    expect(document).toEqual({ a: true, b: false, c: true, d: 493, e: 'on' });
    const configMap = parseYamlDocuments(
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  BOT_CHROMIUM_SANDBOX: on\n',
      'test',
    )[0] as unknown as KubernetesObject;
    expect((await schemaProblems(configMap)).join('\n')).toContain(
      '/data/BOT_CHROMIUM_SANDBOX must be string',
    );
  });

  it('refuses a key twice in one mapping, and a value JSON has no form for', () => {
    expect(() => parseYamlDocuments('a: 1\na: 2\n', 'test')).toThrow(/unique/i);
    expect(() => parseYamlDocuments('a: 2024-01-02\n', 'test')).toThrow(/quote it/);
  });
});

describe('env files', () => {
  it('reads KEY=value lines as kustomize does: the value is everything after the first =', () => {
    expect(
      parseEnvFile('\uFEFF# comment\n\nA=1\n  B=x=y\nC=\nD=postgres://u:p@h:5432/d\r\n', 'test'),
    ).toEqual([
      ['A', '1'],
      ['B', 'x=y'],
      ['C', ''],
      ['D', 'postgres://u:p@h:5432/d'],
    ]);
  });

  it('refuses what kustomize versions read differently, or what is surely a mistake', () => {
    expect(() => parseEnvFile('A\n', 'test')).toThrow(/own environment/);
    expect(() => parseEnvFile('A="quoted"\n', 'test')).toThrow(/quoted/);
    expect(() => parseEnvFile('A=trailing \n', 'test')).toThrow(/whitespace/);
    expect(() => parseEnvFile('1A=x\n', 'test')).toThrow(/variable name/);
  });
});

describe('JSON patches (RFC 6902)', () => {
  const document = { list: [{ name: 'a' }], map: { x: 1 } };

  it('adds, replaces, removes and tests', () => {
    const patched = applyJsonPatch(
      document,
      [
        { op: 'test', path: '/list/0/name', value: 'a' },
        { op: 'add', path: '/list/-', value: { name: 'c' } },
        { op: 'add', path: '/list/1', value: { name: 'b' } },
        { op: 'replace', path: '/map/x', value: 2 },
        { op: 'add', path: '/map/y~1z', value: 3 },
        { op: 'remove', path: '/list/0' },
        { op: 'add', path: '/fresh', value: [] },
      ],
      'test',
    );
    expect(patched).toEqual({ list: [{ name: 'b' }, { name: 'c' }], map: { x: 2, 'y/z': 3 }, fresh: [] });
    expect(document).toEqual({ list: [{ name: 'a' }], map: { x: 1 } });
  });

  it('fails on a failed test, a missing member or parent, an index past the end, and move or copy', () => {
    expect(() => applyJsonPatch(document, [{ op: 'test', path: '/map/x', value: 2 }], 't')).toThrow(/has 1/);
    expect(() => applyJsonPatch(document, [{ op: 'replace', path: '/map/nope', value: 2 }], 't')).toThrow(
      /no member/,
    );
    expect(() => applyJsonPatch(document, [{ op: 'add', path: '/nope/x', value: 2 }], 't')).toThrow(
      /no member/,
    );
    expect(() => applyJsonPatch(document, [{ op: 'add', path: '/list/5', value: 2 }], 't')).toThrow(
      /out of range/,
    );
    expect(() => applyJsonPatch(document, [{ op: 'move', from: '/map', path: '/m' }], 't')).toThrow(
      /not supported/,
    );
  });
});

describe('kustomizations', () => {
  it('renders resources, a base directory, a Secret from an env file and a JSON patch', () => {
    const directory = project({
      'base/kustomization.yaml': `${HEADER}resources:\n  - config.yaml\nsecretGenerator:\n  - name: keys\n    namespace: app\n    envs:\n      - keys.env\ngeneratorOptions:\n  disableNameSuffixHash: true\n  labels:\n    team: x\n`,
      'base/config.yaml': `${CONFIG_MAP}---\n`,
      'base/keys.env': 'TOKEN=abc\n',
      'overlay/kustomization.yaml': `${HEADER}resources:\n  - ../base\npatches:\n  - target:\n      version: v1\n      kind: ConfigMap\n      name: settings\n    patch: |-\n      - op: add\n        path: /data/B\n        value: "2"\n`,
    });
    expect(renderKustomization(join(directory, 'overlay'))).toEqual([
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'settings', namespace: 'app' },
        data: { A: '1', B: '2' },
      },
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'keys', namespace: 'app', labels: { team: 'x' } },
        type: 'Opaque',
        data: { TOKEN: Buffer.from('abc').toString('base64') },
      },
    ]);
  });

  it('refuses what it does not render as kustomize would', () => {
    const refused: Record<string, [string, RegExp]> = {
      'a namespace transformer': [
        `${HEADER}namespace: other\nresources:\n  - c.yaml\n`,
        /`namespace` is not supported/,
      ],
      'common labels': [
        `${HEADER}commonLabels:\n  a: b\nresources:\n  - c.yaml\n`,
        /`commonLabels` is not supported/,
      ],
      'image overrides': [
        `${HEADER}images:\n  - name: x\n    newTag: y\nresources:\n  - c.yaml\n`,
        /`images` is not supported/,
      ],
      'a hashed generated name': [
        `${HEADER}secretGenerator:\n  - name: s\n    envs: [k.env]\n`,
        /hash suffix/,
      ],
      'a strategic merge patch': [
        `${HEADER}resources:\n  - c.yaml\npatches:\n  - target: {kind: ConfigMap, name: settings}\n    patch: |-\n      data:\n        A: "2"\n`,
        /not strategic merge/,
      ],
      'a target matching nothing': [
        `${HEADER}resources:\n  - c.yaml\npatches:\n  - target: {kind: ConfigMap, name: other}\n    patch: '[]'\n`,
        /no resource matches/,
      ],
      'a target name kustomize reads as a pattern': [
        `${HEADER}resources:\n  - c.yaml\npatches:\n  - target: {kind: ConfigMap, name: "set.*"}\n    patch: '[]'\n`,
        /plain name/,
      ],
      'a missing env file': [
        `${HEADER}secretGenerator:\n  - name: s\n    envs: [missing.env]\ngeneratorOptions:\n  disableNameSuffixHash: true\n`,
        /missing.env does not exist/,
      ],
      'an object twice': [`${HEADER}resources:\n  - c.yaml\n  - c.yaml\n`, /defined twice/],
      'a remote resource': [`${HEADER}resources:\n  - https://example.com/x.yaml\n`, /relative path/],
    };
    for (const [what, [kustomization, reason]] of Object.entries(refused)) {
      const directory = project({
        'kustomization.yaml': kustomization,
        'c.yaml': CONFIG_MAP,
        'k.env': 'A=1\n',
      });
      expect(() => renderKustomization(directory), what).toThrow(reason);
    }
  });
});
