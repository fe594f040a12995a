// The browser-safe client: tweetnacl and fetch only. Node-only key files live in key-file.ts.
export { fromBase64Url, toBase64Url } from './base64url.js';
export {
  ENVELOPE_ALG,
  EnvelopeError,
  envelopeErrors,
  isEnvelopeV1,
  openEnvelope,
  openMessage,
  sealSentCopy,
  sealText,
} from './envelope-crypto.js';
export type {
  EnvelopeV1,
  OpenedMessage,
  OpenedText,
  SealInput,
  SentCopyInput,
  SentPlaintext,
  TextPlaintext,
} from './envelope-crypto.js';
export { fromHex, toHex, utf8 } from './hex.js';
export {
  LOG_ENTRIES_MAX,
  RelayClient,
  RelayClientError,
  RelayUnreachableError,
} from './http-client.js';
export type { HandleRecord, InboxPage, RelayClientOptions, TreeHead } from './http-client.js';
export {
  emptyRoot,
  leafHash,
  lineHash,
  nodeHash,
  treeHeadMessage,
  verifyConsistency,
  verifyInclusion,
} from './merkle.js';
export {
  SigchainError,
  chainLines,
  eldestLink,
  linkBody,
  linkLine,
  rotationLink,
  verifyChain,
} from './sigchain.js';
export type { RotationInput, SigchainLink, VerifiedChain } from './sigchain.js';
export {
  MemoryPinStore,
  TrustError,
  advanceHead,
  checkChainLogged,
  headSignatureValid,
  rotationExplains,
  safetyNumber,
  verifyHandle,
} from './trust.js';
export type { Pin, PinStatus, PinStore, VerifiedHandle } from './trust.js';
export { followInbox } from './inbox-stream.js';
export type { FollowOptions, InboxMessage, StreamEvent } from './inbox-stream.js';
export { generateKeyPair, keyPairFromSecret, keyPairFromSeed, primaryOf } from './keys.js';
export type { KeyPair } from './keys.js';
export {
  REGISTRATION_ALG,
  authLines,
  signJcs,
  signRegistration,
  signedAuthValue,
  unixNow,
} from './signing.js';
export type { RegistrationEnvelope, RegistrationInput } from './signing.js';
