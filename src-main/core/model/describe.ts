import { CoreError } from '../errors.js';
import { ANSWER_SHAPE_PREFIX, type RawProperties } from './glue.js';
import type { ModelRunner } from './model-runner.js';
import { sensorKind, type ModelDescription } from '../contract/model-schema.js';

const IMAGE_TYPES = new Set(['object_detection', 'constrained_object_detection', 'visual_anomaly', 'image']);
const round = (x: number, d = 3): number => Math.round(x * 10 ** d) / 10 ** d;

/**
 * Turns what a started export says of itself into a description, then checks it by classifying
 * one window of zeros (a model that fails on silence would fail live, with less said). `axes` is
 * the person's --axes, needed only by builds that do not say.
 */
export async function describeModel(runner: ModelRunner, axesGiven: number | null): Promise<ModelDescription> {
  const p = runner.properties;
  refuseImages(p);
  if (!(p.frequency > 0) || !(p.frameSampleCount > 0)) {
    throw new CoreError('InvalidArguments', `The model does not say its sampling frequency or window (frequency ${p.frequency}, frame_sample_count ${p.frameSampleCount}); Capture Desk cannot cut windows for it. Export it again from the platform's deployment page.`);
  }
  const { axes, axesFrom } = axesOf(p, axesGiven);
  const floatsPerWindow = axes === null ? null : axes * p.frameSampleCount;
  // Unknown axes: pad the zeros so a module expecting more axes reads zeros, not what lies beyond.
  const count = floatsPerWindow ?? p.frameSampleCount;
  const zeros = () => new Float32Array(floatsPerWindow ?? p.frameSampleCount * 16);
  let first;
  const times: number[] = [];
  try {
    first = await runner.classify(zeros(), { count });
    for (let i = 0; i < 4; i++) times.push((await runner.classify(zeros(), { count })).ms);
  } catch (err) {
    const said = (err as Error).message;
    // The module's answer could not be read as scores (classification: 42): not an abort, a broken build.
    const what = said.startsWith(ANSWER_SHAPE_PREFIX) ? 'gave an answer Capture Desk cannot read when it classified a window of zeros' : 'aborted when it classified a window of zeros';
    throw new CoreError('InvalidArguments', `The model ${what}: ${said}. It cannot run here; export it again, or ask whoever built it.`);
  }
  if (first.code !== 0) {
    throw new CoreError('InvalidArguments', `The model failed on a window of zeros (run_classifier returned ${first.code}${first.code === -5 ? ': its signal processing failed' : ''}). It would fail on live data too; export it again, or check the impulse on the platform.`);
  }
  const labels = p.labels ?? first.scores.map(([l]) => l);
  if (labels.length === 0) throw new CoreError('InvalidArguments', 'The model answered a window of zeros with no labels and scores, and does not list its labels: there is nothing it could tell. Export it again from the platform\'s deployment page.');
  const continuous = p.continuous;
  times.sort((a, b) => a - b);
  return {
    sensorCode: p.sensor,
    sensor: sensorKind(p.sensor),
    frequencyHz: p.frequency,
    frameSampleCount: p.frameSampleCount,
    windowMs: round((p.frameSampleCount / p.frequency) * 1000),
    axes,
    axesFrom,
    floatsPerWindow,
    labels,
    // Old builds answer anomaly 0 with or without an anomaly block and do not say which: no block claimed.
    hasAnomaly: p.hasAnomaly ?? false,
    modelType: p.modelType,
    hasInit: p.hasInit,
    continuous,
    sliceFloats: continuous && floatsPerWindow !== null ? (p.sliceSize ?? Math.floor(floatsPerWindow / 4)) : null,
    project: p.project,
    startMs: round(runner.startMs, 2),
    classifyMs: round(times[Math.floor(times.length / 2)] ?? first.ms, 3),
  };
}

function refuseImages(p: RawProperties): void {
  const image = p.sensor === 3 || (p.inputWidth > 0 && p.inputHeight > 0) || (p.modelType !== null && IMAGE_TYPES.has(p.modelType));
  if (image) {
    const what = p.modelType === 'object_detection' || p.modelType === 'constrained_object_detection' ? 'finds objects in images' : 'classifies images';
    throw new CoreError('InvalidArguments', `This model ${what}; Capture Desk runs models on sensor and audio streams. Export a time-series or audio impulse instead.`);
  }
}

function axesOf(p: RawProperties, given: number | null): { axes: number | null; axesFrom: ModelDescription['axesFrom'] } {
  if (p.inputFeaturesCount !== null && p.inputFeaturesCount > 0) {
    const axes = p.inputFeaturesCount / p.frameSampleCount;
    if (!Number.isInteger(axes)) {
      throw new CoreError('InvalidArguments', `The model takes ${p.inputFeaturesCount} floats per window of ${p.frameSampleCount} samples: not a whole number of axes. Export it again from the platform.`);
    }
    if (given !== null && given !== axes) throw axesContradict(given, axes, `${p.inputFeaturesCount} floats per window of ${p.frameSampleCount} samples`);
    return { axes, axesFrom: 'model' };
  }
  // A microphone is one channel: the one case an old build's axes are known without asking. It
  // comes before --axes: taking --axes 2 here fed the module two windows' worth and it aborted
  // on an assertion, blamed on the export. An --axes 1 that agrees is still the model's word.
  if (p.sensor === 1) {
    if (given !== null && given !== 1) throw axesContradict(given, 1, 'it is a microphone model: one channel');
    return { axes: 1, axesFrom: 'model' };
  }
  if (given !== null) return { axes: given, axesFrom: 'given' };
  return { axes: null, axesFrom: 'unknown' };
}

/** --axes says other than the model: the person's number is the mistake, so that is what is said. */
function axesContradict(given: number, axes: number, why: string): CoreError {
  return new CoreError('InvalidArguments', `--axes ${given} contradicts the model, which says itself that it takes ${axes} ${axes === 1 ? 'axis' : 'axes'} (${why}). Leave --axes out, or give --axes ${axes}; nothing was added.`);
}
