/**
 * A refused API key, said in the command line's terms (its flag and environment variable, not the
 * app's Settings and Resume button): one sentence for giving the key, which each command that
 * uploads ends with what running it again does with the files it did not send.
 */
const GIVE_KEY = 'Give the project\'s API key with --api-key KEY or in the CAPTURE_DESK_API_KEY environment variable ' +
  '("capture-desk check --api-key KEY" tests it)';

/** `upload`: its files are named again by the next run, which sends them with its own words. */
export const UPLOAD_KEY_REFUSED_HINT = `${GIVE_KEY}, then run the same command again: the files not sent yet go then, with that run's label, category and flags.`;

/**
 * `record … --upload` and `classify live --catch … --upload`: a run again would make a new take,
 * so it says where this one waits and what sends it. Any queue on that data folder sends every
 * queued sample (UploadQueue takes the oldest due first), so the next --upload run takes it along.
 */
export const TAKE_KEY_REFUSED_HINT = `${GIVE_KEY}. The take is saved in the data folder and stays queued: ` +
  'the next record or classify run with --upload and that key on the same --data-dir sends it too, with the label and category it was saved with.';
