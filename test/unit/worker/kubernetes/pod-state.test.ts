import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  botInfoOfPod,
  unschedulableMessage,
  waitingReason,
} from '../../../../worker/runtime/kubernetes/pod-state.js';
import { parseQuantity } from '../../../../worker/runtime/kubernetes/quantity.js';

function pod(status: V1Pod['status'], metadata: V1Pod['metadata'] = {}): V1Pod {
  return { metadata: { name: 'bot-1', labels: { 'meetbot.meeting-id': '1' }, ...metadata }, status };
}

describe('a bot pod read as a container', () => {
  it('not yet running is created, not exited', () => {
    expect(botInfoOfPod(pod({ phase: 'Pending' }))).toMatchObject({ running: false, exitCode: null });
  });

  it('running', () => {
    const info = botInfoOfPod(pod({ phase: 'Running', containerStatuses: [runningStatus()] }));
    expect(info).toMatchObject({ id: 'bot-1', running: true, exitCode: null, oomKilled: false });
    expect(info.disruption).toBeUndefined();
  });

  it('ended carries its exit code, and says when its memory limit killed it', () => {
    expect(
      botInfoOfPod(pod({ phase: 'Succeeded', containerStatuses: [terminated(0, 'Completed')] })),
    ).toMatchObject({
      running: false,
      exitCode: 0,
      oomKilled: false,
    });
    expect(
      botInfoOfPod(pod({ phase: 'Failed', containerStatuses: [terminated(137, 'OOMKilled')] })),
    ).toMatchObject({
      running: false,
      exitCode: 137,
      oomKilled: true,
    });
  });

  it('being deleted no longer runs, and gone without an exit code is a kill', () => {
    const deleting = pod(
      { phase: 'Running', containerStatuses: [runningStatus()] },
      { deletionTimestamp: new Date() },
    );
    expect(botInfoOfPod(deleting)).toMatchObject({ running: false, exitCode: null });
    expect(botInfoOfPod(deleting, true)).toMatchObject({ running: false, exitCode: 137 });
  });

  it('names each disruption Kubernetes marks on a pod', () => {
    const cases: Array<[string, string]> = [
      ['EvictionByEvictionAPI', "the bot's pod was evicted"],
      ['PreemptionByScheduler', "the bot's pod was preempted"],
      ['DeletionByTaintManager', "the bot's node was lost"],
      ['DeletionByPodGC', "the bot's node was lost"],
      ['TerminationByKubelet', "the bot's node ran short"],
    ];
    for (const [reason, words] of cases) {
      const disrupted = pod({
        phase: 'Running',
        conditions: [{ type: 'DisruptionTarget', status: 'True', reason, message: 'why' }],
      });
      expect(botInfoOfPod(disrupted, true).disruption).toMatch(new RegExp(`^${words}.*: why$`));
    }
  });

  it('reads a kubelet eviction from before the condition existed', () => {
    const evicted = pod({
      phase: 'Failed',
      reason: 'Evicted',
      message: 'The node was low on resource: memory.',
    });
    expect(botInfoOfPod(evicted)).toMatchObject({
      running: false,
      exitCode: 137,
      disruption: expect.stringContaining('The node was low on resource: memory.'),
    });
  });

  it('tells the scheduler’s refusal and a container’s wait', () => {
    const refused = pod({
      phase: 'Pending',
      conditions: [
        {
          type: 'PodScheduled',
          status: 'False',
          reason: 'Unschedulable',
          message: '0/2 nodes are available: 2 Insufficient memory.',
        },
      ],
    });
    expect(unschedulableMessage(refused)).toBe('0/2 nodes are available: 2 Insufficient memory.');
    expect(unschedulableMessage(pod({ phase: 'Pending' }))).toBeUndefined();
    const pulling = pod({
      phase: 'Pending',
      containerStatuses: [
        {
          name: 'bot',
          image: 'i',
          imageID: '',
          ready: false,
          restartCount: 0,
          state: { waiting: { reason: 'ErrImagePull', message: 'not found' } },
        },
      ],
    });
    expect(waitingReason(pulling)).toBe('ErrImagePull: not found');
  });
});

describe('Kubernetes quantities', () => {
  it('read as the metrics API writes them', () => {
    expect(parseQuantity('250m')).toBeCloseTo(0.25);
    expect(parseQuantity('12345678n')).toBeCloseTo(0.012345678);
    expect(parseQuantity('2')).toBe(2);
    expect(parseQuantity('512Mi')).toBe(512 * 2 ** 20);
    expect(parseQuantity('123456Ki')).toBe(123456 * 1024);
    expect(parseQuantity('1G')).toBe(1e9);
    expect(parseQuantity('1e3')).toBe(1000);
    expect(() => parseQuantity('lots')).toThrow('not a Kubernetes quantity');
  });
});

function runningStatus() {
  return {
    name: 'bot',
    image: 'i',
    imageID: '',
    ready: true,
    restartCount: 0,
    state: { running: { startedAt: new Date() } },
  };
}

function terminated(exitCode: number, reason: string) {
  return {
    name: 'bot',
    image: 'i',
    imageID: '',
    ready: false,
    restartCount: 0,
    state: { terminated: { exitCode, reason } },
  };
}
