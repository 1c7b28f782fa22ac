import { describe, expect, it } from 'vitest';
import { createDispatch, type Handlers } from '../../src-main/core/dispatch.js';
import { CoreError } from '../../src-main/core/errors.js';
import { createLogger } from '../../src-main/core/log.js';
import { sampleInputs } from '../support/contract-samples.js';

function handlers(overrides: Partial<Handlers> = {}): Handlers {
  // Only the methods these tests call; the real core answers the rest (browser-shell and ipc tests).
  const settings = { ingestionUrl: 'http://a', managementUrl: 'http://b/v1', projectId: null, deviceName: 'x', labelTargets: {}, uploadConcurrency: 4, qualityHold: 'errors' as const, qualityMinLengthMs: 500, projectWindowMs: null, classifyAfterUpload: 'off' as const, classifyTargets: {}, remoteMgmtUrl: null };
  return {
    'app.info': () => ({ name: 'n', version: '1', shell: 'cli', platform: 'linux', dataDir: '/d', nodeVersion: '20', indexRebuild: null, shellWarning: null }),
    'settings.get': () => settings,
    'settings.set': (p) => ({ ...settings, ...p }),
    'serial.listPorts': () => [],
    'sources.list': () => [],
    'stream.start': ({ sourceId }) => ({ sourceId, axes: [], rateHz: 1, simulated: true }),
    'stream.stop': () => ({ stopped: true }),
    ...overrides,
  } as Handlers;
}

function capture() {
  const lines: string[] = [];
  return { log: createLogger((l) => lines.push(l)), lines };
}

describe('dispatch', () => {
  it('answers methods with their handler', async () => {
    const { log } = capture();
    const dispatch = createDispatch(handlers(), log);
    for (const method of ['app.info', 'settings.get', 'settings.set', 'serial.listPorts', 'sources.list', 'stream.start', 'stream.stop'] as const) {
      const r = await dispatch(method, sampleInputs[method]);
      expect(r.ok, method).toBe(true);
    }
  });

  it('rejects an unknown method with a typed error and a log line', async () => {
    const { log, lines } = capture();
    const r = await createDispatch(handlers(), log)('settings.drop', {});
    expect(r).toMatchObject({ ok: false, error: { code: 'UnknownMethod' } });
    expect(lines.join('')).toContain('unknown method');
  });

  it('rejects prototype keys as method names', async () => {
    const r = await createDispatch(handlers(), capture().log)('constructor', {});
    expect(r).toMatchObject({ ok: false, error: { code: 'UnknownMethod' } });
  });

  it('rejects arguments that fail the schema, naming the field', async () => {
    const { log, lines } = capture();
    const dispatch = createDispatch(handlers(), log);
    const r = await dispatch('settings.set', { ingestionUrl: 'ftp://nope' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe('InvalidArguments');
    expect(r.error.message).toContain('ingestionUrl');
    expect(lines.join('')).toContain('invalid arguments');
    // Unknown keys are refused too: a typo must not be silently ignored.
    expect((await dispatch('settings.set', { deviceNmae: 'x' })).ok).toBe(false);
    expect((await dispatch('stream.start', { sourceId: 'x', rateHz: -5 })).ok).toBe(false);
    expect((await dispatch('app.info', 'not an object')).ok).toBe(false);
  });

  it('passes CoreErrors through and hides nothing but the stack of unexpected ones', async () => {
    const dispatch = createDispatch(
      handlers({
        'serial.listPorts': () => {
          throw new CoreError('PermissionDenied', 'join dialout');
        },
        'sources.list': () => {
          throw new TypeError('boom');
        },
      }),
      capture().log,
    );
    expect(await dispatch('serial.listPorts', {})).toEqual({ ok: false, error: { code: 'PermissionDenied', message: 'join dialout' } });
    expect(await dispatch('sources.list', {})).toMatchObject({ ok: false, error: { code: 'Internal', message: expect.stringContaining('boom') } });
  });

  it('refuses an answer that breaks its own schema (a core bug) instead of sending it', async () => {
    const bad = handlers({ 'app.info': () => ({ name: 1 }) as never });
    const r = await createDispatch(bad, capture().log)('app.info', {});
    expect(r).toMatchObject({ ok: false, error: { code: 'Internal' } });
  });
});
