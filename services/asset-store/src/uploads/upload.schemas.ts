import { ingestFieldsSchema } from '../assets/asset.schemas.js';

/**
 * `Upload-Metadata` keys (contract, "resumable uploads"): the file ingest's text fields plus
 * `filename`, the original file name (the multipart part's own name at `POST /ingest`),
 * limited like `human_file_name`. Other keys are ignored, as other form fields are.
 */
export const uploadMetadataSchema = ingestFieldsSchema.extend({
  filename: ingestFieldsSchema.shape.human_file_name,
});
