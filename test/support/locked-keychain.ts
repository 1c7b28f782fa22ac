import { keytarKeychain, type Keychain, type KeytarLike } from '../../src-main/core/secrets/keychain.js';

/** keytar answering as a Secret Service whose keyring is locked does (the texts libsecret gives). */
export const lockedKeyring: KeytarLike = {
  getPassword: () => Promise.reject(new Error('Cannot get secret of a locked object')),
  setPassword: () => Promise.reject(new Error('Cannot create an item in a locked collection')),
  deletePassword: () => Promise.reject(new Error('Cannot delete a locked object')),
};

/** The real keychain adapter over that keytar: every read of a key fails the way a locked keyring makes it fail. */
export const lockedKeychain = (): Keychain => keytarKeychain({ load: async () => lockedKeyring, platform: 'linux' });
