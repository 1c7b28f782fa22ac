// The contract lives in core/contract/ (contract.ts there is its face). This re-export stays only
// for upload's import-files.ts, bulk-import.ts and add-paths.ts, which are being changed elsewhere.
export * from './contract/contract.js';
