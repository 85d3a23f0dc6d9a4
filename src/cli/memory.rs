//! The allocator's settings for the command line (glibc on Linux): big arrays in their
//! own memory mappings, given back to the system when freed.

/// Big arrays always in their own memory mapping, given back to the system when freed.
///
/// glibc serves a block above its mmap threshold (128 KiB at first) from a mapping of
/// its own, but raises the threshold, up to 32 MB, each time such a block is freed; the
/// arrays of a big mesh (tens of MB, allocated and freed in turn as a file is read,
/// converted and written) then come from the heap, which keeps what they leave behind
/// resident. A conversion's peak resident size then depends on the order of its
/// allocations: UNIGINE ms14 from the 72 MB bench file took 254.5 MB resident for a
/// 186 MB heap peak. Setting the threshold turns the raising off (glibc's `mallopt`
/// documentation): 182.4 MB. See README, "Peak memory".
///
/// The trim threshold (how much free memory at the heap's top glibc keeps rather than
/// give back) is raised with it to 8 MiB, as the dynamic scheme would have raised it:
/// left at 128 KiB, the heap shrank and grew again for every file of a batch, and a
/// batch conversion of the archive bench took 0.33 s instead of 0.28 s.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn fix_mmap_threshold() {
    /// Blocks from 1 MiB up are mapped (the 128 KiB start gave the same peaks).
    const MMAP_THRESHOLD: libc::c_int = 1 << 20;
    /// Free memory kept at the top of the heap.
    const TRIM_THRESHOLD: libc::c_int = 8 << 20;
    // SAFETY: `mallopt` only sets allocator parameters, and is called before any other
    // thread exists; a refusal (0) leaves glibc's default, which is still correct.
    #[allow(unsafe_code)]
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
        libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD);
    }
}

/// Elsewhere the allocator is left as it is.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn fix_mmap_threshold() {}
