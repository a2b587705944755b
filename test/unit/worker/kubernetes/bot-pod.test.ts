import { describe, expect, it } from 'vitest';
import { BOT_CONFIG_ENV, BOT_CONFIG_FILE_ENV, BOT_USER_ID } from '../../../../shared/contract/bot-config.js';
import type { BotContainerSpec } from '../../../../worker/runtime/bot-runtime.js';
import {
  BOT_CONFIG_FILE,
  type BotPodOptions,
  botPodManifest,
  botSecretManifest,
} from '../../../../worker/runtime/kubernetes/bot-pod.js';

const config = JSON.stringify({ meetingId: 5, redisUrl: 'redis://bot-5@127.0.0.1:6379' });
const spec: BotContainerSpec = {
  name: 'meetbot-test-meeting-5',
  image: 'meetbot/bot:latest',
  env: { [BOT_CONFIG_ENV]: config },
  labels: { 'meetbot.deployment': 'test', 'meetbot.meeting-id': '5', 'meetbot.worker-id': 'w1' },
  memoryBytes: 1024 * 2 ** 20,
  nanoCpus: 1e9,
  pidsLimit: 512,
  networkMode: 'host',
  seccompProfile: '{"defaultAction":"SCMP_ACT_ERRNO"}',
  files: [
    {
      directory: '/home/bot',
      name: 'bot-secrets.json',
      content: Buffer.from('{"redisPassword":"p"}'),
      mode: 0o600,
      uid: BOT_USER_ID,
      gid: BOT_USER_ID,
    },
  ],
};
const options: BotPodOptions = {
  namespace: 'meetbot',
  seccompProfile: 'meetbot/bot-seccomp.json',
  filesDirectory: '/home/bot',
  cpuRequestCores: 0.9,
};

describe('a bot pod', () => {
  const pod = botPodManifest(spec, options);
  const container = pod.spec?.containers[0];

  it('keeps the config and every secret out of its spec: they are files of its Secret', () => {
    const podText = JSON.stringify(pod);
    expect(podText).not.toContain('redisPassword');
    expect(podText).not.toContain('redis://');
    expect(container?.env).toEqual([{ name: BOT_CONFIG_FILE_ENV, value: `/home/bot/${BOT_CONFIG_FILE}` }]);
    const secret = botSecretManifest(spec, options);
    expect(Buffer.from(secret.data?.[BOT_CONFIG_FILE] ?? '', 'base64').toString()).toBe(config);
    expect(Buffer.from(secret.data?.['bot-secrets.json'] ?? '', 'base64').toString()).toBe(
      '{"redisPassword":"p"}',
    );
    // Each file mounted by itself into the bot's home, read-only, readable by the bot's group only.
    expect(container?.volumeMounts).toEqual(
      expect.arrayContaining([
        {
          name: 'bot-files',
          mountPath: '/home/bot/bot-config.json',
          subPath: 'bot-config.json',
          readOnly: true,
        },
        {
          name: 'bot-files',
          mountPath: '/home/bot/bot-secrets.json',
          subPath: 'bot-secrets.json',
          readOnly: true,
        },
      ]),
    );
    expect(pod.spec?.volumes?.[0]).toEqual({
      name: 'bot-files',
      secret: { secretName: spec.name, defaultMode: 0o440 },
    });
  });

  it('carries over the Docker runtime’s containment', () => {
    expect(pod.spec?.restartPolicy).toBe('Never');
    expect(pod.spec?.automountServiceAccountToken).toBe(false);
    expect(pod.spec?.enableServiceLinks).toBe(false);
    expect(pod.spec?.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: BOT_USER_ID,
      runAsGroup: BOT_USER_ID,
      fsGroup: BOT_USER_ID,
      seccompProfile: { type: 'Localhost', localhostProfile: 'meetbot/bot-seccomp.json' },
    });
    expect(container?.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      privileged: false,
      capabilities: { drop: ['ALL'] },
    });
    expect(pod.spec?.volumes?.[1]).toEqual({
      name: 'dshm',
      emptyDir: { medium: 'Memory', sizeLimit: '256Mi' },
    });
  });

  it('asks for what a bot costs and is held to its limits', () => {
    expect(container?.resources).toEqual({
      requests: { cpu: '900m', memory: '1024Mi' },
      limits: { cpu: '1000m', memory: '1024Mi' },
    });
    const small = botPodManifest({ ...spec, nanoCpus: 0.5e9 }, options).spec?.containers[0]?.resources;
    expect(small?.requests?.cpu).toBe('500m');
  });

  it('is labelled as a bot of this deployment for the NetworkPolicy and the workers', () => {
    expect(pod.metadata?.labels).toEqual({
      'app.kubernetes.io/name': 'meetbot',
      'app.kubernetes.io/component': 'bot',
      ...spec.labels,
    });
    expect(pod.metadata?.namespace).toBe('meetbot');
  });

  it('runs under the runtime’s default profile without Chromium’s sandbox, or when told to', () => {
    const unsandboxed = botPodManifest({ ...spec, seccompProfile: null }, options);
    expect(unsandboxed.spec?.securityContext?.seccompProfile).toEqual({ type: 'RuntimeDefault' });
    const runtimeDefault = botPodManifest(spec, { ...options, seccompProfile: 'RuntimeDefault' });
    expect(runtimeDefault.spec?.securityContext?.seccompProfile).toEqual({ type: 'RuntimeDefault' });
  });

  it('refuses a file outside the bot’s own directory', () => {
    const stray = { ...spec, files: [{ ...spec.files![0]!, directory: '/etc' }] };
    expect(() => botSecretManifest(stray, options)).toThrow('outside /home/bot');
  });
});
