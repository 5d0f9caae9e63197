import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  DeviceAnswerError,
  DeviceTimeoutError,
  operationRunner,
  openDevice,
  stateProxy,
  workflowProxy,
  type DeviceClient,
  type StateDeclaration,
  type WorkflowDeclaration,
} from '../../src/device/index.js';
import { ValueError } from '../../src/errors.js';
import { requestLines, socketDir, spawnBridge, type Bridge } from './support/bridge.js';

const CAP = 'https://example.org/plant#PickCapability';
const WF = 'https://example.org/plant#PickWorkflow';
const SP = 'https://example.org/plant#GripperState';
const OP = 'https://example.org/plant#PickOperation_op_0123456789ab';

const pick: WorkflowDeclaration = { name: 'pick', capabilityClass: CAP, workflowClass: WF, path: '/pick' };
const place: WorkflowDeclaration = {
  name: 'place',
  capabilityClass: CAP,
  workflowClass: WF,
  path: '/place',
  method: 'POST',
  timeoutMs: 300,
};
const gripper: StateDeclaration = { name: 'gripper', capabilityClass: CAP, statePropertyClass: SP, path: '/state/gripper' };

let sockets: Awaited<ReturnType<typeof socketDir>>;
let bridge: Bridge;
let device: DeviceClient;

beforeAll(async () => {
  sockets = await socketDir();
  bridge = await spawnBridge({ kind: 'robot', socket: sockets.path('robot.sock') });
  device = openDevice(bridge.target);
});
afterAll(async () => {
  await device.close();
  await bridge.stop();
  await sockets.cleanup();
});

/** Requests the bridge has seen, after letting its log lines arrive. */
async function seen(): Promise<number> {
  await new Promise((r) => setTimeout(r, 100));
  return requestLines(bridge).length;
}

describe('workflowProxy and stateProxy', () => {
  it('should POST the arguments to the workflow path and read the state with GET', async () => {
    const run = workflowProxy(device, pick);
    const read = stateProxy(device, gripper);
    await expect(run({ item: 'gear' })).resolves.toEqual({ ok: true, gripper: 'holding', item: 'gear' });
    await expect(read()).resolves.toBe('holding');
    await expect(workflowProxy(device, place)({})).resolves.toEqual({ ok: true, gripper: 'empty', placed: 'gear' });
    await expect(read()).resolves.toBe('empty');
  });

  it('should pass the device failure through as a DeviceAnswerError with its detail', async () => {
    const err = (await workflowProxy(device, pick)({ fail: 'gripper jammed' }).catch((e: unknown) => e)) as DeviceAnswerError;
    expect(err).toBeInstanceOf(DeviceAnswerError);
    expect(err.detail).toBe('gripper jammed');
    expect(err.message).toBe(`POST /pick on device ${device.description} answered HTTP 500: gripper jammed`);
  });

  it('should apply the declared timeout', async () => {
    const err = (await workflowProxy(device, place)({ hang: true }).catch((e: unknown) => e)) as DeviceTimeoutError;
    expect(err).toBeInstanceOf(DeviceTimeoutError);
    expect(err.timeoutMs).toBe(300);
  });

  it('should refuse arguments that are not a JSON object without calling the device', async () => {
    const before = await seen();
    const run = workflowProxy(device, pick) as (args: unknown) => Promise<unknown>;
    await expect(run([1, 2])).rejects.toThrow('workflow "pick" takes a JSON object of arguments, got an array');
    await expect(run(null)).rejects.toThrow(ValueError);
    expect(await seen()).toBe(before);
  });

  it.each([
    [{ ...pick, path: 'pick' }, 'workflow "pick" path "pick" is not an absolute path'],
    [{ ...pick, timeoutMs: -5 }, 'workflow "pick" timeoutMs -5 is not a positive whole number of milliseconds'],
    [{ ...pick, timeoutMs: 1.5 }, 'workflow "pick" timeoutMs 1.5 is not a positive whole number'],
    [{ ...pick, method: 'GET' }, 'workflow "pick" has method "GET"; device workflows are called with POST'],
    [{ ...pick, name: '' }, 'workflow "" has no name'],
  ])('should refuse the declaration %j when the proxy is built', (decl, message) => {
    expect(() => workflowProxy(device, decl as WorkflowDeclaration)).toThrow(message);
  });

  it('should refuse a state declaration with a bad path', () => {
    expect(() => stateProxy(device, { ...gripper, path: '/state/grip per' })).toThrow(
      'state property "gripper" path "/state/grip per" is not an absolute path',
    );
  });
});

describe('operationRunner', () => {
  const run = () => operationRunner(device, [pick, place]);

  it('should POST the operation IRI and its data to the named workflow and return the answer', async () => {
    await expect(run()({ operationIri: OP, workflowName: 'pick', data: { item: 'housing' } })).resolves.toEqual({
      ok: true,
      gripper: 'holding',
      item: 'housing',
      operation: OP,
    });
  });

  it('should keep the operation IRI when a data field is called "operation"', async () => {
    const answer = (await run()({ operationIri: OP, workflowName: 'place', data: { operation: 'urn:spoofed' } })) as Record<
      string,
      unknown
    >;
    expect(answer.operation).toBe(OP);
  });

  it('should fail with a ValueError naming the workflow and the declared ones, without calling the device', async () => {
    const before = await seen();
    await expect(run()({ operationIri: OP, workflowName: 'weld', data: {} })).rejects.toThrow(
      `operation ${OP} names workflow "weld", which this device does not declare (declared: "pick", "place")`,
    );
    await expect(run()({ operationIri: OP, data: {} })).rejects.toThrow(ValueError);
    await expect(operationRunner(device, [])({ operationIri: OP, workflowName: 'pick', data: {} })).rejects.toThrow('(declared: none)');
    expect(await seen()).toBe(before);
  });

  it('should turn the device error into the failure whose message becomes the reason', async () => {
    const err = (await run()({ operationIri: OP, workflowName: 'pick', data: { fail: 'no part in reach' } }).catch(
      (e: unknown) => e,
    )) as Error;
    expect(err).toBeInstanceOf(DeviceAnswerError);
    expect(err.message).toContain('answered HTTP 500: no part in reach');
  });

  it('should refuse two declarations with one name', () => {
    expect(() => operationRunner(device, [pick, { ...pick, path: '/pick2' }])).toThrow('workflow "pick" is declared twice');
  });
});
