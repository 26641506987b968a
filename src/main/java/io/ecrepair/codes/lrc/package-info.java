/**
 * Azure's Local Reconstruction Codes (Huang et al., "Erasure Coding in Windows Azure Storage",
 * USENIX ATC'12): {@link io.ecrepair.codes.lrc.LrcCode} is LRC(k, l, g) with XOR local parities
 * and maximally recoverable global parities ({@code LrcCoefficients}); every decode and repair
 * graph reads the cheapest set of surviving units ({@code RankTable}). HDFS codec name
 * {@code lrc-l<l>}, with m = l + g.
 */
package io.ecrepair.codes.lrc;
