import path from 'node:path';
import type { Config } from '../../../shared/config/config.js';
import { DirectoryStorage } from '../../../domain/media/directory-storage.js';
import { MediaLibrary, type MediaLibraryOptions } from '../../../domain/media/media-library.js';
import type { MediaStorage } from '../../../domain/media/media-storage.js';
import type { SiteKit, SiteModule } from '../site-kit.js';
import { MediaController } from './media-controller.js';
import { registerUploadsRoute } from './uploads-route.js';

export interface MediaModuleOptions {
  /** Where files go; default a DirectoryStorage at MEDIA_UPLOADS_DIR (else DATA_DIR/uploads). */
  storage?: MediaStorage;
  /** Tests: called before each size file is made (throw to stand for a dying request). */
  beforeEachFile?: MediaLibraryOptions['beforeEachFile'];
}

/** The uploads directory the configuration names. */
export function uploadsDir(config: Pick<Config, 'MEDIA_UPLOADS_DIR' | 'DATA_DIR'>): string {
  return path.resolve(config.MEDIA_UPLOADS_DIR ?? path.join(config.DATA_DIR, 'uploads'));
}

export function mediaLibraryOptions(config: Config): MediaLibraryOptions {
  return {
    maxUploadBytes: config.MEDIA_MAX_UPLOAD_BYTES,
    maxPixels: config.MEDIA_MAX_IMAGE_PIXELS,
    bigImageThreshold: config.MEDIA_BIG_IMAGE_THRESHOLD,
    quality: config.MEDIA_IMAGE_QUALITY,
  };
}

/** The site's media: /wp/v2/media routes and the files at /wp-content/uploads/. */
export function createMediaModule(options: MediaModuleOptions = {}): SiteModule {
  return {
    name: 'media',
    register(kit: SiteKit) {
      const storage = options.storage ?? new DirectoryStorage(uploadsDir(kit.config));
      const library = new MediaLibrary(kit.db, storage, {
        ...mediaLibraryOptions(kit.config),
        beforeEachFile: options.beforeEachFile,
      });
      new MediaController(kit, library).register();
      registerUploadsRoute(kit.http, storage);
    },
  };
}
