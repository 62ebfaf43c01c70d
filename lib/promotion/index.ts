export * from './port.js';
export { RecordingPromoter, type RecordedPromotion } from './recording.js';
