//! Descriptor-based path resolution for the file tools (filled in with the file-tool checks).
