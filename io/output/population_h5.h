/* The inlets' and outlets' states in a snapshot (engine/inlets, engine/outlets), field by
 * field: HDF5 compound datasets whose members have names and fixed little-endian types,
 * so a file does not depend on how a compiler lays out inlet_state and outlet_state.
 * Older files hold the same states as the engine's raw bytes, a uint8 dataset; the
 * reader takes both. */
#ifndef DEMPACT_POPULATION_H5_H
#define DEMPACT_POPULATION_H5_H

#include <hdf5.h>
#include <stddef.h>

#include "engine/population/population.h"

/* Writes n inlet (outlet) states as the dataset `name` of loc, with its unit and meaning
 * attributes. Returns 0 or -1. */
int population_h5_write_inlets(hid_t loc, const char *name, const inlet_state *in, size_t n,
                               const char *meaning);
int population_h5_write_outlets(hid_t loc, const char *name, const outlet_state *out, size_t n,
                                const char *meaning);

/* Reads n states from the dataset `name` of loc into out (n of them), from a compound
 * dataset or a raw-byte one of exactly n states. Returns 0, or -1 with a message. */
int population_h5_read_inlets(hid_t loc, const char *name, inlet_state *out, size_t n,
                              char *err, size_t err_len);
int population_h5_read_outlets(hid_t loc, const char *name, outlet_state *out, size_t n,
                               char *err, size_t err_len);

#endif
