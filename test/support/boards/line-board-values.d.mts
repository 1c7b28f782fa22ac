export declare const boardValue: (i: number, a: number) => number;
