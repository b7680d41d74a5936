/* The fault codes of SPEC-02P.1 5.6 as the run-time spells them in a fault record.
 *
 * GENERATED from cint_ls/vocabulary/faults.py by `python -m cint_ls.exec.c17.fault_codes`:
 * do not edit (tests/c17/test_fault_codes.py fails when this file is not what the
 * vocabulary makes). */
#ifndef CINT_FAULTS_H
#define CINT_FAULTS_H

#define CINT_E_OVERFLOW "E_OVERFLOW" /* the exact result is outside the type's range */
#define CINT_E_DIV_ZERO "E_DIV_ZERO" /* division by zero */
#define CINT_E_NARROW "E_NARROW" /* the value does not fit the destination type */
#define CINT_E_SHAPE "E_SHAPE" /* shapes do not match */
#define CINT_E_ALIAS "E_ALIAS" /* views overlap */
#define CINT_E_FUEL "E_FUEL" /* fuel allowance exhausted */
#define CINT_E_UNSUPPORTED "E_UNSUPPORTED" /* the executor does not support this */
#define CINT_E_STALE_HANDLE "E_STALE_HANDLE" /* the view's storage was released or reset */
#define CINT_E_BOUNDS "E_BOUNDS" /* index out of range */
#define CINT_E_SHIFT "E_SHIFT" /* shift count out of range */
#define CINT_E_EMPTY "E_EMPTY" /* the reduction has no contributions */
#define CINT_E_ASSERT "E_ASSERT" /* assertion failed */

/* A host status (10.5 para 9, 10.6 para 11): not a cint fault, a record of the same shape. */
#define CINT_RESOURCE_CODE "CINT_RESOURCE" /* the status itself is cint_rt.h's CINT_RESOURCE */

#endif
