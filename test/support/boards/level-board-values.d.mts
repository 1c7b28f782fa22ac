export declare const levelRow: (i: number, level: number, axes: number) => number[];
export declare const rowOf: (axis1: number) => number;
export declare function levelOfRow(changes: Array<[number, number]>, i: number): number;
