/** How added files get their label: from the file name (as the platform does), one fixed label, or none. */
export type LabelMode = 'filename' | 'fixed' | 'unlabeled';
