export function bundleForNode(entry: string): Promise<string>;
export function buildCaptureWorker(): Promise<string>;
