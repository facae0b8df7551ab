#!/usr/bin/env bash
# Usage: serial_libraries.sh DEMPACT [archive]
# The program dempact loads no MPI library (OpenMPI, PMIx, Zoltan, Scotch, HDF5's MPI
# flavour): those are dempact-mpi's, which dempact runs in its place under mpirun
# (CMakeLists.txt). With `archive` (a build with DEMPACT_HDF5_ARCHIVE) it loads neither
# HDF5's shared library nor libcurl and what curl brings (gnutls, libcrypto, Kerberos,
# LDAP): HDF5 is linked from its archive. ldd lists every library the loader maps at start.
set -u
dempact=$1
archive=${2:-}
libs=$(ldd "$dempact") || { echo "FAIL: ldd $dempact exited $?"; exit 1; }
grep -q 'libc\.so' <<<"$libs" || { echo "FAIL: ldd lists no libc: $libs"; exit 1; }
"$dempact" --version >/dev/null || { echo "FAIL: $dempact --version exited $?"; exit 1; }
unwanted='libmpi|libopen-rte|libopen-pal|libpmix|zoltan|scotch|hdf5_openmpi'
[ -n "$archive" ] && unwanted+='|libhdf5|libcurl|libgnutls|libcrypto|libssl|libkrb5|libldap'
found=$(grep -E "$unwanted" <<<"$libs")
if [ -n "$found" ]; then
  echo "FAIL: $dempact loads"
  echo "$found"
  exit 1
fi
echo "$dempact loads $(wc -l <<<"$libs") libraries, none of: ${unwanted//|/, }"
