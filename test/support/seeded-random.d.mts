/** mulberry32: the same numbers in [0, 1) for the same seed on every machine. */
export declare function prng(seed: number): () => number;
