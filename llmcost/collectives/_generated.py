"""Generated from llmcost/collectives/formulas.py by
``python -m llmcost.collectives.formulas``: do not edit (tests/test_symbolic.py pins it).

One numpy function per expression shape; FUNCTIONS maps the shape name to
(function, argument names, expression hash).
"""
# ruff: noqa

import numpy


def all_reduce__ring__switch(B_p, S, W_0, alpha_0, d_0, eta_0, kappa_p, t_0):
    return S*(2*d_0 - 2)/(d_0*numpy.minimum(B_p, W_0*eta_0*kappa_p)) + alpha_0*(2*d_0 - 2) + t_0


def all_reduce__ring__mesh(B_p, S, W_0, alpha_0, d_0, eta_0, kappa_p, t_0, w_0):
    return S*(2*d_0 - 2)/(d_0*numpy.minimum(B_p, eta_0*kappa_p*numpy.minimum(W_0, w_0*(d_0 - 1)))) + alpha_0*(2*d_0 - 2) + t_0


def all_reduce__ring__torus(B_p, S, W_0, alpha_0, d_0, eta_0, kappa_p, m_0, t_0, w_0):
    return S*(2*d_0 - 2)/(d_0*numpy.minimum(B_p, eta_0*kappa_p*numpy.minimum(W_0, 2*m_0*w_0))) + alpha_0*(2*d_0 - 2) + t_0


def all_reduce__ring__switch_switch(B_p, S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, kappa_p, t_0):
    return S*(2*d_0*d_1 - 2)/(d_0*d_1*numpy.minimum(B_p, kappa_p*numpy.minimum(W_0*eta_0, W_1*d_0*eta_1))) + alpha_0*(2*d_0*d_1 - 2*d_1) + alpha_1*(2*d_1 - 2) + t_0


def all_reduce__ring__mesh_switch(B_p, S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, kappa_p, t_0, w_0):
    return S*(2*d_0*d_1 - 2)/(d_0*d_1*numpy.minimum(B_p, kappa_p*numpy.minimum(eta_0*numpy.minimum(W_0, w_0*(d_0 - 1)), W_1*d_0*eta_1))) + alpha_0*(2*d_0*d_1 - 2*d_1) + alpha_1*(2*d_1 - 2) + t_0


def all_reduce__ring__torus_switch(B_p, S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, kappa_p, m_0, t_0, w_0):
    return S*(2*d_0*d_1 - 2)/(d_0*d_1*numpy.minimum(B_p, kappa_p*numpy.minimum(eta_0*numpy.minimum(W_0, 2*m_0*w_0), W_1*d_0*eta_1))) + alpha_0*(2*d_0*d_1 - 2*d_1) + alpha_1*(2*d_1 - 2) + t_0


def all_reduce__ring__switch_switch_switch(B_p, S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, kappa_p, t_0):
    return S*(2*d_0*d_1*d_2 - 2)/(d_0*d_1*d_2*numpy.minimum(B_p, kappa_p*numpy.minimum(numpy.minimum(W_0*eta_0, W_1*d_0*eta_1), W_2*d_0*d_1*eta_2))) + alpha_0*(2*d_0*d_1*d_2 - 2*d_1*d_2) + alpha_1*(2*d_1*d_2 - 2*d_2) + alpha_2*(2*d_2 - 2) + t_0


def all_reduce__ring__mesh_switch_switch(B_p, S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, kappa_p, t_0, w_0):
    return S*(2*d_0*d_1*d_2 - 2)/(d_0*d_1*d_2*numpy.minimum(B_p, kappa_p*numpy.minimum(numpy.minimum(eta_0*numpy.minimum(W_0, w_0*(d_0 - 1)), W_1*d_0*eta_1), W_2*d_0*d_1*eta_2))) + alpha_0*(2*d_0*d_1*d_2 - 2*d_1*d_2) + alpha_1*(2*d_1*d_2 - 2*d_2) + alpha_2*(2*d_2 - 2) + t_0


def all_reduce__ring__torus_switch_switch(B_p, S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, kappa_p, m_0, t_0, w_0):
    return S*(2*d_0*d_1*d_2 - 2)/(d_0*d_1*d_2*numpy.minimum(B_p, kappa_p*numpy.minimum(numpy.minimum(eta_0*numpy.minimum(W_0, 2*m_0*w_0), W_1*d_0*eta_1), W_2*d_0*d_1*eta_2))) + alpha_0*(2*d_0*d_1*d_2 - 2*d_1*d_2) + alpha_1*(2*d_1*d_2 - 2*d_2) + alpha_2*(2*d_2 - 2) + t_0


def all_reduce__tree__switch(B_p, S, W_0, alpha_0, eta_0, h_0, kappa_p, kappa_tree, t_0):
    return 2*S/numpy.minimum(B_p, W_0*eta_0*kappa_p*kappa_tree) + 2*alpha_0*h_0 + t_0


def all_reduce__tree__mesh(B_p, S, W_0, alpha_0, d_0, eta_0, h_0, kappa_p, kappa_tree, t_0, w_0):
    return 2*S/numpy.minimum(B_p, eta_0*kappa_p*kappa_tree*numpy.minimum(W_0, w_0*(d_0 - 1))) + 2*alpha_0*h_0 + t_0


def all_reduce__tree__torus(B_p, S, W_0, alpha_0, eta_0, h_0, kappa_p, kappa_tree, m_0, t_0, w_0):
    return 2*S/numpy.minimum(B_p, eta_0*kappa_p*kappa_tree*numpy.minimum(W_0, 2*m_0*w_0)) + 2*alpha_0*h_0 + t_0


def all_reduce__tree__switch_switch(B_p, S, W_0, W_1, alpha_0, alpha_1, d_0, eta_0, eta_1, h_0, h_1, kappa_p, kappa_tree, t_0):
    return 2*S/numpy.minimum(B_p, kappa_p*kappa_tree*numpy.minimum(W_0*eta_0, W_1*d_0*eta_1)) + 2*alpha_0*h_0 + 2*alpha_1*h_1 + t_0


def all_reduce__tree__mesh_switch(B_p, S, W_0, W_1, alpha_0, alpha_1, d_0, eta_0, eta_1, h_0, h_1, kappa_p, kappa_tree, t_0, w_0):
    return 2*S/numpy.minimum(B_p, kappa_p*kappa_tree*numpy.minimum(eta_0*numpy.minimum(W_0, w_0*(d_0 - 1)), W_1*d_0*eta_1)) + 2*alpha_0*h_0 + 2*alpha_1*h_1 + t_0


def all_reduce__tree__torus_switch(B_p, S, W_0, W_1, alpha_0, alpha_1, d_0, eta_0, eta_1, h_0, h_1, kappa_p, kappa_tree, m_0, t_0, w_0):
    return 2*S/numpy.minimum(B_p, kappa_p*kappa_tree*numpy.minimum(eta_0*numpy.minimum(W_0, 2*m_0*w_0), W_1*d_0*eta_1)) + 2*alpha_0*h_0 + 2*alpha_1*h_1 + t_0


def all_reduce__tree__switch_switch_switch(B_p, S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, eta_0, eta_1, eta_2, h_0, h_1, h_2, kappa_p, kappa_tree, t_0):
    return 2*S/numpy.minimum(B_p, kappa_p*kappa_tree*numpy.minimum(numpy.minimum(W_0*eta_0, W_1*d_0*eta_1), W_2*d_0*d_1*eta_2)) + 2*alpha_0*h_0 + 2*alpha_1*h_1 + 2*alpha_2*h_2 + t_0


def all_reduce__tree__mesh_switch_switch(B_p, S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, eta_0, eta_1, eta_2, h_0, h_1, h_2, kappa_p, kappa_tree, t_0, w_0):
    return 2*S/numpy.minimum(B_p, kappa_p*kappa_tree*numpy.minimum(numpy.minimum(eta_0*numpy.minimum(W_0, w_0*(d_0 - 1)), W_1*d_0*eta_1), W_2*d_0*d_1*eta_2)) + 2*alpha_0*h_0 + 2*alpha_1*h_1 + 2*alpha_2*h_2 + t_0


def all_reduce__tree__torus_switch_switch(B_p, S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, eta_0, eta_1, eta_2, h_0, h_1, h_2, kappa_p, kappa_tree, m_0, t_0, w_0):
    return 2*S/numpy.minimum(B_p, kappa_p*kappa_tree*numpy.minimum(numpy.minimum(eta_0*numpy.minimum(W_0, 2*m_0*w_0), W_1*d_0*eta_1), W_2*d_0*d_1*eta_2)) + 2*alpha_0*h_0 + 2*alpha_1*h_1 + 2*alpha_2*h_2 + t_0


def all_reduce__recursive_doubling__switch(S, W_0, alpha_0, d_0, eta_0, t_0):
    return t_0 + (S/(W_0*eta_0) + alpha_0)*numpy.log(d_0)/numpy.log(2)


def all_reduce__recursive_doubling__mesh(S, alpha_0, d_0, eta_0, t_0, w_0):
    return t_0 + (S/(eta_0*w_0) + alpha_0)*numpy.log(d_0)/numpy.log(2)


def all_reduce__recursive_doubling__torus(S, alpha_0, d_0, eta_0, t_0, w_0):
    return t_0 + (S/(eta_0*w_0) + alpha_0)*numpy.log(d_0)/numpy.log(2)


def all_reduce__recursive_doubling__switch_switch(S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, t_0):
    return t_0 + (S/(W_0*eta_0) + alpha_0)*numpy.log(d_0)/numpy.log(2) + (S/(W_1*eta_1) + alpha_1)*numpy.log(d_1)/numpy.log(2)


def all_reduce__recursive_doubling__mesh_switch(S, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, t_0, w_0):
    return t_0 + (S/(W_1*eta_1) + alpha_1)*numpy.log(d_1)/numpy.log(2) + (S/(eta_0*w_0) + alpha_0)*numpy.log(d_0)/numpy.log(2)


def all_reduce__recursive_doubling__torus_switch(S, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, t_0, w_0):
    return t_0 + (S/(W_1*eta_1) + alpha_1)*numpy.log(d_1)/numpy.log(2) + (S/(eta_0*w_0) + alpha_0)*numpy.log(d_0)/numpy.log(2)


def all_reduce__recursive_doubling__switch_switch_switch(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, t_0):
    return t_0 + (S/(W_0*eta_0) + alpha_0)*numpy.log(d_0)/numpy.log(2) + (S/(W_1*eta_1) + alpha_1)*numpy.log(d_1)/numpy.log(2) + (S/(W_2*eta_2) + alpha_2)*numpy.log(d_2)/numpy.log(2)


def all_reduce__recursive_doubling__mesh_switch_switch(S, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, t_0, w_0):
    return t_0 + (S/(W_1*eta_1) + alpha_1)*numpy.log(d_1)/numpy.log(2) + (S/(W_2*eta_2) + alpha_2)*numpy.log(d_2)/numpy.log(2) + (S/(eta_0*w_0) + alpha_0)*numpy.log(d_0)/numpy.log(2)


def all_reduce__recursive_doubling__torus_switch_switch(S, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, t_0, w_0):
    return t_0 + (S/(W_1*eta_1) + alpha_1)*numpy.log(d_1)/numpy.log(2) + (S/(W_2*eta_2) + alpha_2)*numpy.log(d_2)/numpy.log(2) + (S/(eta_0*w_0) + alpha_0)*numpy.log(d_0)/numpy.log(2)


def all_reduce__rabenseifner__switch(S, W_0, alpha_0, d_0, eta_0, t_0):
    return 2*S*(d_0 - 1)/(W_0*d_0*eta_0) + 2*alpha_0*numpy.log(d_0)/numpy.log(2) + t_0


def all_reduce__rabenseifner__mesh(S, alpha_0, d_0, eta_0, t_0, w_0):
    return 2*S*(d_0 - 1)/(d_0*eta_0*w_0) + 2*alpha_0*numpy.log(d_0)/numpy.log(2) + t_0


def all_reduce__rabenseifner__torus(S, alpha_0, d_0, eta_0, t_0, w_0):
    return 2*S*(d_0 - 1)/(d_0*eta_0*w_0) + 2*alpha_0*numpy.log(d_0)/numpy.log(2) + t_0


def all_reduce__rabenseifner__switch_switch(S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, t_0):
    return 2*S*(d_1 - 1)/(W_1*d_0*d_1*eta_1) + 2*S*(d_0 - 1)/(W_0*d_0*eta_0) + 2*alpha_0*numpy.log(d_0)/numpy.log(2) + 2*alpha_1*numpy.log(d_1)/numpy.log(2) + t_0


def all_reduce__rabenseifner__mesh_switch(S, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, t_0, w_0):
    return 2*S*(d_0 - 1)/(d_0*eta_0*w_0) + 2*S*(d_1 - 1)/(W_1*d_0*d_1*eta_1) + 2*alpha_0*numpy.log(d_0)/numpy.log(2) + 2*alpha_1*numpy.log(d_1)/numpy.log(2) + t_0


def all_reduce__rabenseifner__torus_switch(S, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, t_0, w_0):
    return 2*S*(d_0 - 1)/(d_0*eta_0*w_0) + 2*S*(d_1 - 1)/(W_1*d_0*d_1*eta_1) + 2*alpha_0*numpy.log(d_0)/numpy.log(2) + 2*alpha_1*numpy.log(d_1)/numpy.log(2) + t_0


def all_reduce__rabenseifner__switch_switch_switch(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, t_0):
    return 2*S*(d_2 - 1)/(W_2*d_0*d_1*d_2*eta_2) + 2*S*(d_1 - 1)/(W_1*d_0*d_1*eta_1) + 2*S*(d_0 - 1)/(W_0*d_0*eta_0) + 2*alpha_0*numpy.log(d_0)/numpy.log(2) + 2*alpha_1*numpy.log(d_1)/numpy.log(2) + 2*alpha_2*numpy.log(d_2)/numpy.log(2) + t_0


def all_reduce__rabenseifner__mesh_switch_switch(S, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, t_0, w_0):
    return 2*S*(d_0 - 1)/(d_0*eta_0*w_0) + 2*S*(d_2 - 1)/(W_2*d_0*d_1*d_2*eta_2) + 2*S*(d_1 - 1)/(W_1*d_0*d_1*eta_1) + 2*alpha_0*numpy.log(d_0)/numpy.log(2) + 2*alpha_1*numpy.log(d_1)/numpy.log(2) + 2*alpha_2*numpy.log(d_2)/numpy.log(2) + t_0


def all_reduce__rabenseifner__torus_switch_switch(S, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, t_0, w_0):
    return 2*S*(d_0 - 1)/(d_0*eta_0*w_0) + 2*S*(d_2 - 1)/(W_2*d_0*d_1*d_2*eta_2) + 2*S*(d_1 - 1)/(W_1*d_0*d_1*eta_1) + 2*alpha_0*numpy.log(d_0)/numpy.log(2) + 2*alpha_1*numpy.log(d_1)/numpy.log(2) + 2*alpha_2*numpy.log(d_2)/numpy.log(2) + t_0


def all_reduce__hierarchical__switch(S, W_0, alpha_0, d_0, eta_0, t_0):
    return 2*S*(d_0 - 1)/(W_0*d_0*eta_0) + 2*alpha_0*(d_0 - 1) + t_0


def all_reduce__hierarchical__mesh(S, W_0, alpha_0, d_0, eta_0, t_0, w_0):
    return 2*S*(d_0 - 1)/(d_0*eta_0*numpy.minimum(W_0, w_0*(d_0 - 1))) + 2*alpha_0*(d_0 - 1) + t_0


def all_reduce__hierarchical__torus(S, W_0, alpha_0, d_0, eta_0, m_0, t_0, w_0):
    return 2*S*(d_0 - 1)/(d_0*eta_0*numpy.minimum(W_0, 2*m_0*w_0)) + 2*alpha_0*(d_0 - 1) + t_0


def all_reduce__hierarchical__switch_switch(S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, t_0):
    return 2*S*(d_1 - 1)/(W_1*d_0*d_1*eta_1) + 2*S*(d_0 - 1)/(W_0*d_0*eta_0) + 2*alpha_0*(d_0 - 1) + 2*alpha_1*(d_1 - 1) + t_0


def all_reduce__hierarchical__mesh_switch(S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, t_0, w_0):
    return 2*S*(d_0 - 1)/(d_0*eta_0*numpy.minimum(W_0, w_0*(d_0 - 1))) + 2*S*(d_1 - 1)/(W_1*d_0*d_1*eta_1) + 2*alpha_0*(d_0 - 1) + 2*alpha_1*(d_1 - 1) + t_0


def all_reduce__hierarchical__torus_switch(S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, m_0, t_0, w_0):
    return 2*S*(d_0 - 1)/(d_0*eta_0*numpy.minimum(W_0, 2*m_0*w_0)) + 2*S*(d_1 - 1)/(W_1*d_0*d_1*eta_1) + 2*alpha_0*(d_0 - 1) + 2*alpha_1*(d_1 - 1) + t_0


def all_reduce__hierarchical__switch_switch_switch(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, t_0):
    return 2*S*(d_2 - 1)/(W_2*d_0*d_1*d_2*eta_2) + 2*S*(d_1 - 1)/(W_1*d_0*d_1*eta_1) + 2*S*(d_0 - 1)/(W_0*d_0*eta_0) + 2*alpha_0*(d_0 - 1) + 2*alpha_1*(d_1 - 1) + 2*alpha_2*(d_2 - 1) + t_0


def all_reduce__hierarchical__mesh_switch_switch(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, t_0, w_0):
    return 2*S*(d_0 - 1)/(d_0*eta_0*numpy.minimum(W_0, w_0*(d_0 - 1))) + 2*S*(d_2 - 1)/(W_2*d_0*d_1*d_2*eta_2) + 2*S*(d_1 - 1)/(W_1*d_0*d_1*eta_1) + 2*alpha_0*(d_0 - 1) + 2*alpha_1*(d_1 - 1) + 2*alpha_2*(d_2 - 1) + t_0


def all_reduce__hierarchical__torus_switch_switch(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, m_0, t_0, w_0):
    return 2*S*(d_0 - 1)/(d_0*eta_0*numpy.minimum(W_0, 2*m_0*w_0)) + 2*S*(d_2 - 1)/(W_2*d_0*d_1*d_2*eta_2) + 2*S*(d_1 - 1)/(W_1*d_0*d_1*eta_1) + 2*alpha_0*(d_0 - 1) + 2*alpha_1*(d_1 - 1) + 2*alpha_2*(d_2 - 1) + t_0


def all_reduce__in_network__switch__inr1(S, W_0, alpha_0, d_0, eta_0, kappa_inr, t_0):
    return S*(d_0 + 1)/(W_0*d_0*eta_0*kappa_inr) + alpha_0 + t_0


def all_reduce__in_network__switch_switch__inr01(S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, h_0, kappa_inr, t_0):
    return 2*alpha_0*h_0 + alpha_1 + t_0 + numpy.maximum(S*(2*d_0 - 2)/(W_0*d_0*eta_0), S*(d_1 + 1)/(W_1*d_0*d_1*eta_1*kappa_inr))


def all_reduce__in_network__switch_switch__inr10(S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, h_1, kappa_inr, t_0):
    return alpha_0 + 2*alpha_1*h_1 + t_0 + numpy.maximum(S*(d_0 + 1)/(W_0*d_0*eta_0*kappa_inr), S*(2*d_1 - 2)/(W_1*d_0*d_1*eta_1))


def all_reduce__in_network__switch_switch__inr11(S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, kappa_inr, t_0):
    return alpha_0 + alpha_1 + t_0 + numpy.maximum(S*(d_0 + 1)/(W_0*d_0*eta_0*kappa_inr), S*(d_1 + 1)/(W_1*d_0*d_1*eta_1*kappa_inr))


def all_reduce__in_network__mesh_switch__inr01(S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, h_0, kappa_inr, t_0, w_0):
    return 2*alpha_0*h_0 + alpha_1 + t_0 + numpy.maximum(S*(2*d_0 - 2)/(d_0*eta_0*numpy.minimum(W_0, w_0*(d_0 - 1))), S*(d_1 + 1)/(W_1*d_0*d_1*eta_1*kappa_inr))


def all_reduce__in_network__torus_switch__inr01(S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, h_0, kappa_inr, m_0, t_0, w_0):
    return 2*alpha_0*h_0 + alpha_1 + t_0 + numpy.maximum(S*(2*d_0 - 2)/(d_0*eta_0*numpy.minimum(W_0, 2*m_0*w_0)), S*(d_1 + 1)/(W_1*d_0*d_1*eta_1*kappa_inr))


def all_reduce__in_network__switch_switch_switch__inr001(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, h_0, h_1, kappa_inr, t_0):
    return 2*alpha_0*h_0 + 2*alpha_1*h_1 + alpha_2 + t_0 + numpy.maximum(numpy.maximum(S*(2*d_0 - 2)/(W_0*d_0*eta_0), S*(2*d_1 - 2)/(W_1*d_0*d_1*eta_1)), S*(d_2 + 1)/(W_2*d_0*d_1*d_2*eta_2*kappa_inr))


def all_reduce__in_network__switch_switch_switch__inr010(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, h_0, h_2, kappa_inr, t_0):
    return 2*alpha_0*h_0 + alpha_1 + 2*alpha_2*h_2 + t_0 + numpy.maximum(numpy.maximum(S*(2*d_0 - 2)/(W_0*d_0*eta_0), S*(d_1 + 1)/(W_1*d_0*d_1*eta_1*kappa_inr)), S*(2*d_2 - 2)/(W_2*d_0*d_1*d_2*eta_2))


def all_reduce__in_network__switch_switch_switch__inr011(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, h_0, kappa_inr, t_0):
    return 2*alpha_0*h_0 + alpha_1 + alpha_2 + t_0 + numpy.maximum(numpy.maximum(S*(2*d_0 - 2)/(W_0*d_0*eta_0), S*(d_1 + 1)/(W_1*d_0*d_1*eta_1*kappa_inr)), S*(d_2 + 1)/(W_2*d_0*d_1*d_2*eta_2*kappa_inr))


def all_reduce__in_network__switch_switch_switch__inr100(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, h_1, h_2, kappa_inr, t_0):
    return alpha_0 + 2*alpha_1*h_1 + 2*alpha_2*h_2 + t_0 + numpy.maximum(numpy.maximum(S*(d_0 + 1)/(W_0*d_0*eta_0*kappa_inr), S*(2*d_1 - 2)/(W_1*d_0*d_1*eta_1)), S*(2*d_2 - 2)/(W_2*d_0*d_1*d_2*eta_2))


def all_reduce__in_network__switch_switch_switch__inr101(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, h_1, kappa_inr, t_0):
    return alpha_0 + 2*alpha_1*h_1 + alpha_2 + t_0 + numpy.maximum(numpy.maximum(S*(d_0 + 1)/(W_0*d_0*eta_0*kappa_inr), S*(2*d_1 - 2)/(W_1*d_0*d_1*eta_1)), S*(d_2 + 1)/(W_2*d_0*d_1*d_2*eta_2*kappa_inr))


def all_reduce__in_network__switch_switch_switch__inr110(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, h_2, kappa_inr, t_0):
    return alpha_0 + alpha_1 + 2*alpha_2*h_2 + t_0 + numpy.maximum(numpy.maximum(S*(d_0 + 1)/(W_0*d_0*eta_0*kappa_inr), S*(d_1 + 1)/(W_1*d_0*d_1*eta_1*kappa_inr)), S*(2*d_2 - 2)/(W_2*d_0*d_1*d_2*eta_2))


def all_reduce__in_network__switch_switch_switch__inr111(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, kappa_inr, t_0):
    return alpha_0 + alpha_1 + alpha_2 + t_0 + numpy.maximum(numpy.maximum(S*(d_0 + 1)/(W_0*d_0*eta_0*kappa_inr), S*(d_1 + 1)/(W_1*d_0*d_1*eta_1*kappa_inr)), S*(d_2 + 1)/(W_2*d_0*d_1*d_2*eta_2*kappa_inr))


def all_reduce__in_network__mesh_switch_switch__inr001(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, h_0, h_1, kappa_inr, t_0, w_0):
    return 2*alpha_0*h_0 + 2*alpha_1*h_1 + alpha_2 + t_0 + numpy.maximum(numpy.maximum(S*(2*d_0 - 2)/(d_0*eta_0*numpy.minimum(W_0, w_0*(d_0 - 1))), S*(2*d_1 - 2)/(W_1*d_0*d_1*eta_1)), S*(d_2 + 1)/(W_2*d_0*d_1*d_2*eta_2*kappa_inr))


def all_reduce__in_network__mesh_switch_switch__inr010(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, h_0, h_2, kappa_inr, t_0, w_0):
    return 2*alpha_0*h_0 + alpha_1 + 2*alpha_2*h_2 + t_0 + numpy.maximum(numpy.maximum(S*(2*d_0 - 2)/(d_0*eta_0*numpy.minimum(W_0, w_0*(d_0 - 1))), S*(d_1 + 1)/(W_1*d_0*d_1*eta_1*kappa_inr)), S*(2*d_2 - 2)/(W_2*d_0*d_1*d_2*eta_2))


def all_reduce__in_network__mesh_switch_switch__inr011(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, h_0, kappa_inr, t_0, w_0):
    return 2*alpha_0*h_0 + alpha_1 + alpha_2 + t_0 + numpy.maximum(numpy.maximum(S*(2*d_0 - 2)/(d_0*eta_0*numpy.minimum(W_0, w_0*(d_0 - 1))), S*(d_1 + 1)/(W_1*d_0*d_1*eta_1*kappa_inr)), S*(d_2 + 1)/(W_2*d_0*d_1*d_2*eta_2*kappa_inr))


def all_reduce__in_network__torus_switch_switch__inr001(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, h_0, h_1, kappa_inr, m_0, t_0, w_0):
    return 2*alpha_0*h_0 + 2*alpha_1*h_1 + alpha_2 + t_0 + numpy.maximum(numpy.maximum(S*(2*d_0 - 2)/(d_0*eta_0*numpy.minimum(W_0, 2*m_0*w_0)), S*(2*d_1 - 2)/(W_1*d_0*d_1*eta_1)), S*(d_2 + 1)/(W_2*d_0*d_1*d_2*eta_2*kappa_inr))


def all_reduce__in_network__torus_switch_switch__inr010(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, h_0, h_2, kappa_inr, m_0, t_0, w_0):
    return 2*alpha_0*h_0 + alpha_1 + 2*alpha_2*h_2 + t_0 + numpy.maximum(numpy.maximum(S*(2*d_0 - 2)/(d_0*eta_0*numpy.minimum(W_0, 2*m_0*w_0)), S*(d_1 + 1)/(W_1*d_0*d_1*eta_1*kappa_inr)), S*(2*d_2 - 2)/(W_2*d_0*d_1*d_2*eta_2))


def all_reduce__in_network__torus_switch_switch__inr011(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, h_0, kappa_inr, m_0, t_0, w_0):
    return 2*alpha_0*h_0 + alpha_1 + alpha_2 + t_0 + numpy.maximum(numpy.maximum(S*(2*d_0 - 2)/(d_0*eta_0*numpy.minimum(W_0, 2*m_0*w_0)), S*(d_1 + 1)/(W_1*d_0*d_1*eta_1*kappa_inr)), S*(d_2 + 1)/(W_2*d_0*d_1*d_2*eta_2*kappa_inr))


def all_reduce__star__switch(S, W_0, alpha_0, d_0, eta_0, t_0):
    return 2*S*(d_0 - 1)/(W_0*eta_0) + 2*alpha_0 + t_0


def all_reduce__star__mesh(S, W_0, alpha_0, d_0, eta_0, t_0, w_0):
    return 2*S*(d_0 - 1)/(eta_0*numpy.minimum(W_0, w_0*(d_0 - 1))) + 2*alpha_0 + t_0


def all_reduce__star__torus(S, W_0, alpha_0, d_0, eta_0, m_0, t_0, w_0):
    return 2*S*(d_0 - 1)/(eta_0*numpy.minimum(W_0, 2*m_0*w_0)) + 2*alpha_0 + t_0


def all_reduce__star__switch_switch(S, W_0, W_1, alpha_1, d_0, d_1, eta_0, eta_1, t_0):
    return 2*alpha_1 + t_0 + 2*numpy.maximum(S*(d_0 - 1)/(W_0*eta_0), S*(d_0*d_1 - d_0)/(W_1*eta_1))


def all_reduce__star__mesh_switch(S, W_0, W_1, alpha_1, d_0, d_1, eta_0, eta_1, t_0, w_0):
    return 2*alpha_1 + t_0 + 2*numpy.maximum(S*(d_0*d_1 - d_0)/(W_1*eta_1), S*(d_0 - 1)/(eta_0*numpy.minimum(W_0, w_0*(d_0 - 1))))


def all_reduce__star__torus_switch(S, W_0, W_1, alpha_1, d_0, d_1, eta_0, eta_1, m_0, t_0, w_0):
    return 2*alpha_1 + t_0 + 2*numpy.maximum(S*(d_0*d_1 - d_0)/(W_1*eta_1), S*(d_0 - 1)/(eta_0*numpy.minimum(W_0, 2*m_0*w_0)))


def all_reduce__star__switch_switch_switch(S, W_0, W_1, W_2, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, t_0):
    return 2*alpha_2 + t_0 + 2*numpy.maximum(numpy.maximum(S*(d_0 - 1)/(W_0*eta_0), S*(d_0*d_1 - d_0)/(W_1*eta_1)), S*(d_0*d_1*d_2 - d_0*d_1)/(W_2*eta_2))


def all_reduce__star__mesh_switch_switch(S, W_0, W_1, W_2, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, t_0, w_0):
    return 2*alpha_2 + t_0 + 2*numpy.maximum(numpy.maximum(S*(d_0*d_1 - d_0)/(W_1*eta_1), S*(d_0*d_1*d_2 - d_0*d_1)/(W_2*eta_2)), S*(d_0 - 1)/(eta_0*numpy.minimum(W_0, w_0*(d_0 - 1))))


def all_reduce__star__torus_switch_switch(S, W_0, W_1, W_2, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, m_0, t_0, w_0):
    return 2*alpha_2 + t_0 + 2*numpy.maximum(numpy.maximum(S*(d_0*d_1 - d_0)/(W_1*eta_1), S*(d_0*d_1*d_2 - d_0*d_1)/(W_2*eta_2)), S*(d_0 - 1)/(eta_0*numpy.minimum(W_0, 2*m_0*w_0)))


def reduce_scatter__ring__switch(B_p, S, W_0, alpha_0, d_0, eta_0, kappa_p, t_0):
    return S*(d_0 - 1)/(d_0*numpy.minimum(B_p, W_0*eta_0*kappa_p)) + alpha_0*(d_0 - 1) + t_0


def reduce_scatter__ring__mesh(B_p, S, W_0, alpha_0, d_0, eta_0, kappa_p, t_0, w_0):
    return S*(d_0 - 1)/(d_0*numpy.minimum(B_p, eta_0*kappa_p*numpy.minimum(W_0, w_0*(d_0 - 1)))) + alpha_0*(d_0 - 1) + t_0


def reduce_scatter__ring__torus(B_p, S, W_0, alpha_0, d_0, eta_0, kappa_p, m_0, t_0, w_0):
    return S*(d_0 - 1)/(d_0*numpy.minimum(B_p, eta_0*kappa_p*numpy.minimum(W_0, 2*m_0*w_0))) + alpha_0*(d_0 - 1) + t_0


def reduce_scatter__ring__switch_switch(B_p, S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, kappa_p, t_0):
    return S*(d_0*d_1 - 1)/(d_0*d_1*numpy.minimum(B_p, kappa_p*numpy.minimum(W_0*eta_0, W_1*d_0*eta_1))) + alpha_0*(d_0*d_1 - d_1) + alpha_1*(d_1 - 1) + t_0


def reduce_scatter__ring__mesh_switch(B_p, S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, kappa_p, t_0, w_0):
    return S*(d_0*d_1 - 1)/(d_0*d_1*numpy.minimum(B_p, kappa_p*numpy.minimum(eta_0*numpy.minimum(W_0, w_0*(d_0 - 1)), W_1*d_0*eta_1))) + alpha_0*(d_0*d_1 - d_1) + alpha_1*(d_1 - 1) + t_0


def reduce_scatter__ring__torus_switch(B_p, S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, kappa_p, m_0, t_0, w_0):
    return S*(d_0*d_1 - 1)/(d_0*d_1*numpy.minimum(B_p, kappa_p*numpy.minimum(eta_0*numpy.minimum(W_0, 2*m_0*w_0), W_1*d_0*eta_1))) + alpha_0*(d_0*d_1 - d_1) + alpha_1*(d_1 - 1) + t_0


def reduce_scatter__ring__switch_switch_switch(B_p, S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, kappa_p, t_0):
    return S*(d_0*d_1*d_2 - 1)/(d_0*d_1*d_2*numpy.minimum(B_p, kappa_p*numpy.minimum(numpy.minimum(W_0*eta_0, W_1*d_0*eta_1), W_2*d_0*d_1*eta_2))) + alpha_0*(d_0*d_1*d_2 - d_1*d_2) + alpha_1*(d_1*d_2 - d_2) + alpha_2*(d_2 - 1) + t_0


def reduce_scatter__ring__mesh_switch_switch(B_p, S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, kappa_p, t_0, w_0):
    return S*(d_0*d_1*d_2 - 1)/(d_0*d_1*d_2*numpy.minimum(B_p, kappa_p*numpy.minimum(numpy.minimum(eta_0*numpy.minimum(W_0, w_0*(d_0 - 1)), W_1*d_0*eta_1), W_2*d_0*d_1*eta_2))) + alpha_0*(d_0*d_1*d_2 - d_1*d_2) + alpha_1*(d_1*d_2 - d_2) + alpha_2*(d_2 - 1) + t_0


def reduce_scatter__ring__torus_switch_switch(B_p, S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, kappa_p, m_0, t_0, w_0):
    return S*(d_0*d_1*d_2 - 1)/(d_0*d_1*d_2*numpy.minimum(B_p, kappa_p*numpy.minimum(numpy.minimum(eta_0*numpy.minimum(W_0, 2*m_0*w_0), W_1*d_0*eta_1), W_2*d_0*d_1*eta_2))) + alpha_0*(d_0*d_1*d_2 - d_1*d_2) + alpha_1*(d_1*d_2 - d_2) + alpha_2*(d_2 - 1) + t_0


def reduce_scatter__recursive_halving__switch(S, W_0, alpha_0, d_0, eta_0, t_0):
    return S*(d_0 - 1)/(W_0*d_0*eta_0) + alpha_0*numpy.log(d_0)/numpy.log(2) + t_0


def reduce_scatter__recursive_halving__mesh(S, alpha_0, d_0, eta_0, t_0, w_0):
    return S*(d_0 - 1)/(d_0*eta_0*w_0) + alpha_0*numpy.log(d_0)/numpy.log(2) + t_0


def reduce_scatter__recursive_halving__torus(S, alpha_0, d_0, eta_0, t_0, w_0):
    return S*(d_0 - 1)/(d_0*eta_0*w_0) + alpha_0*numpy.log(d_0)/numpy.log(2) + t_0


def reduce_scatter__recursive_halving__switch_switch(S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, t_0):
    return S*(d_1 - 1)/(W_1*d_0*d_1*eta_1) + S*(d_0 - 1)/(W_0*d_0*eta_0) + alpha_0*numpy.log(d_0)/numpy.log(2) + alpha_1*numpy.log(d_1)/numpy.log(2) + t_0


def reduce_scatter__recursive_halving__mesh_switch(S, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, t_0, w_0):
    return S*(d_0 - 1)/(d_0*eta_0*w_0) + S*(d_1 - 1)/(W_1*d_0*d_1*eta_1) + alpha_0*numpy.log(d_0)/numpy.log(2) + alpha_1*numpy.log(d_1)/numpy.log(2) + t_0


def reduce_scatter__recursive_halving__torus_switch(S, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, t_0, w_0):
    return S*(d_0 - 1)/(d_0*eta_0*w_0) + S*(d_1 - 1)/(W_1*d_0*d_1*eta_1) + alpha_0*numpy.log(d_0)/numpy.log(2) + alpha_1*numpy.log(d_1)/numpy.log(2) + t_0


def reduce_scatter__recursive_halving__switch_switch_switch(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, t_0):
    return S*(d_2 - 1)/(W_2*d_0*d_1*d_2*eta_2) + S*(d_1 - 1)/(W_1*d_0*d_1*eta_1) + S*(d_0 - 1)/(W_0*d_0*eta_0) + alpha_0*numpy.log(d_0)/numpy.log(2) + alpha_1*numpy.log(d_1)/numpy.log(2) + alpha_2*numpy.log(d_2)/numpy.log(2) + t_0


def reduce_scatter__recursive_halving__mesh_switch_switch(S, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, t_0, w_0):
    return S*(d_0 - 1)/(d_0*eta_0*w_0) + S*(d_2 - 1)/(W_2*d_0*d_1*d_2*eta_2) + S*(d_1 - 1)/(W_1*d_0*d_1*eta_1) + alpha_0*numpy.log(d_0)/numpy.log(2) + alpha_1*numpy.log(d_1)/numpy.log(2) + alpha_2*numpy.log(d_2)/numpy.log(2) + t_0


def reduce_scatter__recursive_halving__torus_switch_switch(S, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, t_0, w_0):
    return S*(d_0 - 1)/(d_0*eta_0*w_0) + S*(d_2 - 1)/(W_2*d_0*d_1*d_2*eta_2) + S*(d_1 - 1)/(W_1*d_0*d_1*eta_1) + alpha_0*numpy.log(d_0)/numpy.log(2) + alpha_1*numpy.log(d_1)/numpy.log(2) + alpha_2*numpy.log(d_2)/numpy.log(2) + t_0


def reduce_scatter__hierarchical__switch(S, W_0, alpha_0, d_0, eta_0, t_0):
    return S*(d_0 - 1)/(W_0*d_0*eta_0) + alpha_0*(d_0 - 1) + t_0


def reduce_scatter__hierarchical__mesh(S, W_0, alpha_0, d_0, eta_0, t_0, w_0):
    return S*(d_0 - 1)/(d_0*eta_0*numpy.minimum(W_0, w_0*(d_0 - 1))) + alpha_0*(d_0 - 1) + t_0


def reduce_scatter__hierarchical__torus(S, W_0, alpha_0, d_0, eta_0, m_0, t_0, w_0):
    return S*(d_0 - 1)/(d_0*eta_0*numpy.minimum(W_0, 2*m_0*w_0)) + alpha_0*(d_0 - 1) + t_0


def reduce_scatter__hierarchical__switch_switch(S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, t_0):
    return S*(d_1 - 1)/(W_1*d_0*d_1*eta_1) + S*(d_0 - 1)/(W_0*d_0*eta_0) + alpha_0*(d_0 - 1) + alpha_1*(d_1 - 1) + t_0


def reduce_scatter__hierarchical__mesh_switch(S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, t_0, w_0):
    return S*(d_0 - 1)/(d_0*eta_0*numpy.minimum(W_0, w_0*(d_0 - 1))) + S*(d_1 - 1)/(W_1*d_0*d_1*eta_1) + alpha_0*(d_0 - 1) + alpha_1*(d_1 - 1) + t_0


def reduce_scatter__hierarchical__torus_switch(S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, m_0, t_0, w_0):
    return S*(d_0 - 1)/(d_0*eta_0*numpy.minimum(W_0, 2*m_0*w_0)) + S*(d_1 - 1)/(W_1*d_0*d_1*eta_1) + alpha_0*(d_0 - 1) + alpha_1*(d_1 - 1) + t_0


def reduce_scatter__hierarchical__switch_switch_switch(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, t_0):
    return S*(d_2 - 1)/(W_2*d_0*d_1*d_2*eta_2) + S*(d_1 - 1)/(W_1*d_0*d_1*eta_1) + S*(d_0 - 1)/(W_0*d_0*eta_0) + alpha_0*(d_0 - 1) + alpha_1*(d_1 - 1) + alpha_2*(d_2 - 1) + t_0


def reduce_scatter__hierarchical__mesh_switch_switch(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, t_0, w_0):
    return S*(d_0 - 1)/(d_0*eta_0*numpy.minimum(W_0, w_0*(d_0 - 1))) + S*(d_2 - 1)/(W_2*d_0*d_1*d_2*eta_2) + S*(d_1 - 1)/(W_1*d_0*d_1*eta_1) + alpha_0*(d_0 - 1) + alpha_1*(d_1 - 1) + alpha_2*(d_2 - 1) + t_0


def reduce_scatter__hierarchical__torus_switch_switch(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, m_0, t_0, w_0):
    return S*(d_0 - 1)/(d_0*eta_0*numpy.minimum(W_0, 2*m_0*w_0)) + S*(d_2 - 1)/(W_2*d_0*d_1*d_2*eta_2) + S*(d_1 - 1)/(W_1*d_0*d_1*eta_1) + alpha_0*(d_0 - 1) + alpha_1*(d_1 - 1) + alpha_2*(d_2 - 1) + t_0


def all_gather__ring__switch(B_p, S, W_0, alpha_0, d_0, eta_0, kappa_p, t_0):
    return S*(d_0 - 1)/(d_0*numpy.minimum(B_p, W_0*eta_0*kappa_p)) + alpha_0*(d_0 - 1) + t_0


def all_gather__ring__mesh(B_p, S, W_0, alpha_0, d_0, eta_0, kappa_p, t_0, w_0):
    return S*(d_0 - 1)/(d_0*numpy.minimum(B_p, eta_0*kappa_p*numpy.minimum(W_0, w_0*(d_0 - 1)))) + alpha_0*(d_0 - 1) + t_0


def all_gather__ring__torus(B_p, S, W_0, alpha_0, d_0, eta_0, kappa_p, m_0, t_0, w_0):
    return S*(d_0 - 1)/(d_0*numpy.minimum(B_p, eta_0*kappa_p*numpy.minimum(W_0, 2*m_0*w_0))) + alpha_0*(d_0 - 1) + t_0


def all_gather__ring__switch_switch(B_p, S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, kappa_p, t_0):
    return S*(d_0*d_1 - 1)/(d_0*d_1*numpy.minimum(B_p, kappa_p*numpy.minimum(W_0*eta_0, W_1*d_0*eta_1))) + alpha_0*(d_0*d_1 - d_1) + alpha_1*(d_1 - 1) + t_0


def all_gather__ring__mesh_switch(B_p, S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, kappa_p, t_0, w_0):
    return S*(d_0*d_1 - 1)/(d_0*d_1*numpy.minimum(B_p, kappa_p*numpy.minimum(eta_0*numpy.minimum(W_0, w_0*(d_0 - 1)), W_1*d_0*eta_1))) + alpha_0*(d_0*d_1 - d_1) + alpha_1*(d_1 - 1) + t_0


def all_gather__ring__torus_switch(B_p, S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, kappa_p, m_0, t_0, w_0):
    return S*(d_0*d_1 - 1)/(d_0*d_1*numpy.minimum(B_p, kappa_p*numpy.minimum(eta_0*numpy.minimum(W_0, 2*m_0*w_0), W_1*d_0*eta_1))) + alpha_0*(d_0*d_1 - d_1) + alpha_1*(d_1 - 1) + t_0


def all_gather__ring__switch_switch_switch(B_p, S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, kappa_p, t_0):
    return S*(d_0*d_1*d_2 - 1)/(d_0*d_1*d_2*numpy.minimum(B_p, kappa_p*numpy.minimum(numpy.minimum(W_0*eta_0, W_1*d_0*eta_1), W_2*d_0*d_1*eta_2))) + alpha_0*(d_0*d_1*d_2 - d_1*d_2) + alpha_1*(d_1*d_2 - d_2) + alpha_2*(d_2 - 1) + t_0


def all_gather__ring__mesh_switch_switch(B_p, S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, kappa_p, t_0, w_0):
    return S*(d_0*d_1*d_2 - 1)/(d_0*d_1*d_2*numpy.minimum(B_p, kappa_p*numpy.minimum(numpy.minimum(eta_0*numpy.minimum(W_0, w_0*(d_0 - 1)), W_1*d_0*eta_1), W_2*d_0*d_1*eta_2))) + alpha_0*(d_0*d_1*d_2 - d_1*d_2) + alpha_1*(d_1*d_2 - d_2) + alpha_2*(d_2 - 1) + t_0


def all_gather__ring__torus_switch_switch(B_p, S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, kappa_p, m_0, t_0, w_0):
    return S*(d_0*d_1*d_2 - 1)/(d_0*d_1*d_2*numpy.minimum(B_p, kappa_p*numpy.minimum(numpy.minimum(eta_0*numpy.minimum(W_0, 2*m_0*w_0), W_1*d_0*eta_1), W_2*d_0*d_1*eta_2))) + alpha_0*(d_0*d_1*d_2 - d_1*d_2) + alpha_1*(d_1*d_2 - d_2) + alpha_2*(d_2 - 1) + t_0


def all_gather__recursive_doubling__switch(S, W_0, alpha_0, d_0, eta_0, t_0):
    return S*(d_0 - 1)/(W_0*d_0*eta_0) + alpha_0*numpy.log(d_0)/numpy.log(2) + t_0


def all_gather__recursive_doubling__mesh(S, alpha_0, d_0, eta_0, t_0, w_0):
    return S*(d_0 - 1)/(d_0*eta_0*w_0) + alpha_0*numpy.log(d_0)/numpy.log(2) + t_0


def all_gather__recursive_doubling__torus(S, alpha_0, d_0, eta_0, t_0, w_0):
    return S*(d_0 - 1)/(d_0*eta_0*w_0) + alpha_0*numpy.log(d_0)/numpy.log(2) + t_0


def all_gather__recursive_doubling__switch_switch(S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, t_0):
    return S*(d_1 - 1)/(W_1*d_0*d_1*eta_1) + S*(d_0 - 1)/(W_0*d_0*eta_0) + alpha_0*numpy.log(d_0)/numpy.log(2) + alpha_1*numpy.log(d_1)/numpy.log(2) + t_0


def all_gather__recursive_doubling__mesh_switch(S, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, t_0, w_0):
    return S*(d_0 - 1)/(d_0*eta_0*w_0) + S*(d_1 - 1)/(W_1*d_0*d_1*eta_1) + alpha_0*numpy.log(d_0)/numpy.log(2) + alpha_1*numpy.log(d_1)/numpy.log(2) + t_0


def all_gather__recursive_doubling__torus_switch(S, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, t_0, w_0):
    return S*(d_0 - 1)/(d_0*eta_0*w_0) + S*(d_1 - 1)/(W_1*d_0*d_1*eta_1) + alpha_0*numpy.log(d_0)/numpy.log(2) + alpha_1*numpy.log(d_1)/numpy.log(2) + t_0


def all_gather__recursive_doubling__switch_switch_switch(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, t_0):
    return S*(d_2 - 1)/(W_2*d_0*d_1*d_2*eta_2) + S*(d_1 - 1)/(W_1*d_0*d_1*eta_1) + S*(d_0 - 1)/(W_0*d_0*eta_0) + alpha_0*numpy.log(d_0)/numpy.log(2) + alpha_1*numpy.log(d_1)/numpy.log(2) + alpha_2*numpy.log(d_2)/numpy.log(2) + t_0


def all_gather__recursive_doubling__mesh_switch_switch(S, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, t_0, w_0):
    return S*(d_0 - 1)/(d_0*eta_0*w_0) + S*(d_2 - 1)/(W_2*d_0*d_1*d_2*eta_2) + S*(d_1 - 1)/(W_1*d_0*d_1*eta_1) + alpha_0*numpy.log(d_0)/numpy.log(2) + alpha_1*numpy.log(d_1)/numpy.log(2) + alpha_2*numpy.log(d_2)/numpy.log(2) + t_0


def all_gather__recursive_doubling__torus_switch_switch(S, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, t_0, w_0):
    return S*(d_0 - 1)/(d_0*eta_0*w_0) + S*(d_2 - 1)/(W_2*d_0*d_1*d_2*eta_2) + S*(d_1 - 1)/(W_1*d_0*d_1*eta_1) + alpha_0*numpy.log(d_0)/numpy.log(2) + alpha_1*numpy.log(d_1)/numpy.log(2) + alpha_2*numpy.log(d_2)/numpy.log(2) + t_0


def all_gather__hierarchical__switch(S, W_0, alpha_0, d_0, eta_0, t_0):
    return S*(d_0 - 1)/(W_0*d_0*eta_0) + alpha_0*(d_0 - 1) + t_0


def all_gather__hierarchical__mesh(S, W_0, alpha_0, d_0, eta_0, t_0, w_0):
    return S*(d_0 - 1)/(d_0*eta_0*numpy.minimum(W_0, w_0*(d_0 - 1))) + alpha_0*(d_0 - 1) + t_0


def all_gather__hierarchical__torus(S, W_0, alpha_0, d_0, eta_0, m_0, t_0, w_0):
    return S*(d_0 - 1)/(d_0*eta_0*numpy.minimum(W_0, 2*m_0*w_0)) + alpha_0*(d_0 - 1) + t_0


def all_gather__hierarchical__switch_switch(S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, t_0):
    return S*(d_1 - 1)/(W_1*d_0*d_1*eta_1) + S*(d_0 - 1)/(W_0*d_0*eta_0) + alpha_0*(d_0 - 1) + alpha_1*(d_1 - 1) + t_0


def all_gather__hierarchical__mesh_switch(S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, t_0, w_0):
    return S*(d_0 - 1)/(d_0*eta_0*numpy.minimum(W_0, w_0*(d_0 - 1))) + S*(d_1 - 1)/(W_1*d_0*d_1*eta_1) + alpha_0*(d_0 - 1) + alpha_1*(d_1 - 1) + t_0


def all_gather__hierarchical__torus_switch(S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, m_0, t_0, w_0):
    return S*(d_0 - 1)/(d_0*eta_0*numpy.minimum(W_0, 2*m_0*w_0)) + S*(d_1 - 1)/(W_1*d_0*d_1*eta_1) + alpha_0*(d_0 - 1) + alpha_1*(d_1 - 1) + t_0


def all_gather__hierarchical__switch_switch_switch(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, t_0):
    return S*(d_2 - 1)/(W_2*d_0*d_1*d_2*eta_2) + S*(d_1 - 1)/(W_1*d_0*d_1*eta_1) + S*(d_0 - 1)/(W_0*d_0*eta_0) + alpha_0*(d_0 - 1) + alpha_1*(d_1 - 1) + alpha_2*(d_2 - 1) + t_0


def all_gather__hierarchical__mesh_switch_switch(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, t_0, w_0):
    return S*(d_0 - 1)/(d_0*eta_0*numpy.minimum(W_0, w_0*(d_0 - 1))) + S*(d_2 - 1)/(W_2*d_0*d_1*d_2*eta_2) + S*(d_1 - 1)/(W_1*d_0*d_1*eta_1) + alpha_0*(d_0 - 1) + alpha_1*(d_1 - 1) + alpha_2*(d_2 - 1) + t_0


def all_gather__hierarchical__torus_switch_switch(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, m_0, t_0, w_0):
    return S*(d_0 - 1)/(d_0*eta_0*numpy.minimum(W_0, 2*m_0*w_0)) + S*(d_2 - 1)/(W_2*d_0*d_1*d_2*eta_2) + S*(d_1 - 1)/(W_1*d_0*d_1*eta_1) + alpha_0*(d_0 - 1) + alpha_1*(d_1 - 1) + alpha_2*(d_2 - 1) + t_0


def broadcast__ring__switch(B_p, S, W_0, alpha_0, d_0, eta_0, kappa_p, t_0):
    return S/numpy.minimum(B_p, W_0*eta_0*kappa_p) + alpha_0*(d_0 - 1) + t_0


def broadcast__ring__mesh(B_p, S, W_0, alpha_0, d_0, eta_0, kappa_p, t_0, w_0):
    return S/numpy.minimum(B_p, eta_0*kappa_p*numpy.minimum(W_0, w_0*(d_0 - 1))) + alpha_0*(d_0 - 1) + t_0


def broadcast__ring__torus(B_p, S, W_0, alpha_0, d_0, eta_0, kappa_p, m_0, t_0, w_0):
    return S/numpy.minimum(B_p, eta_0*kappa_p*numpy.minimum(W_0, 2*m_0*w_0)) + alpha_0*(d_0 - 1) + t_0


def broadcast__ring__switch_switch(B_p, S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, kappa_p, t_0):
    return S/numpy.minimum(B_p, kappa_p*numpy.minimum(W_0*eta_0, W_1*d_0*eta_1)) + alpha_0*(d_0*d_1 - d_1) + alpha_1*(d_1 - 1) + t_0


def broadcast__ring__mesh_switch(B_p, S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, kappa_p, t_0, w_0):
    return S/numpy.minimum(B_p, kappa_p*numpy.minimum(eta_0*numpy.minimum(W_0, w_0*(d_0 - 1)), W_1*d_0*eta_1)) + alpha_0*(d_0*d_1 - d_1) + alpha_1*(d_1 - 1) + t_0


def broadcast__ring__torus_switch(B_p, S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, kappa_p, m_0, t_0, w_0):
    return S/numpy.minimum(B_p, kappa_p*numpy.minimum(eta_0*numpy.minimum(W_0, 2*m_0*w_0), W_1*d_0*eta_1)) + alpha_0*(d_0*d_1 - d_1) + alpha_1*(d_1 - 1) + t_0


def broadcast__ring__switch_switch_switch(B_p, S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, kappa_p, t_0):
    return S/numpy.minimum(B_p, kappa_p*numpy.minimum(numpy.minimum(W_0*eta_0, W_1*d_0*eta_1), W_2*d_0*d_1*eta_2)) + alpha_0*(d_0*d_1*d_2 - d_1*d_2) + alpha_1*(d_1*d_2 - d_2) + alpha_2*(d_2 - 1) + t_0


def broadcast__ring__mesh_switch_switch(B_p, S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, kappa_p, t_0, w_0):
    return S/numpy.minimum(B_p, kappa_p*numpy.minimum(numpy.minimum(eta_0*numpy.minimum(W_0, w_0*(d_0 - 1)), W_1*d_0*eta_1), W_2*d_0*d_1*eta_2)) + alpha_0*(d_0*d_1*d_2 - d_1*d_2) + alpha_1*(d_1*d_2 - d_2) + alpha_2*(d_2 - 1) + t_0


def broadcast__ring__torus_switch_switch(B_p, S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, kappa_p, m_0, t_0, w_0):
    return S/numpy.minimum(B_p, kappa_p*numpy.minimum(numpy.minimum(eta_0*numpy.minimum(W_0, 2*m_0*w_0), W_1*d_0*eta_1), W_2*d_0*d_1*eta_2)) + alpha_0*(d_0*d_1*d_2 - d_1*d_2) + alpha_1*(d_1*d_2 - d_2) + alpha_2*(d_2 - 1) + t_0


def broadcast__tree__switch(S, W_0, alpha_0, d_0, eta_0, t_0):
    return t_0 + (S/(W_0*eta_0) + alpha_0)*numpy.log(d_0)/numpy.log(2)


def broadcast__tree__mesh(S, alpha_0, d_0, eta_0, t_0, w_0):
    return t_0 + (S/(eta_0*w_0) + alpha_0)*numpy.log(d_0)/numpy.log(2)


def broadcast__tree__torus(S, alpha_0, d_0, eta_0, t_0, w_0):
    return t_0 + (S/(eta_0*w_0) + alpha_0)*numpy.log(d_0)/numpy.log(2)


def broadcast__tree__switch_switch(S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, t_0):
    return t_0 + (S/(W_0*eta_0) + alpha_0)*numpy.log(d_0)/numpy.log(2) + (S/(W_1*eta_1) + alpha_1)*numpy.log(d_1)/numpy.log(2)


def broadcast__tree__mesh_switch(S, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, t_0, w_0):
    return t_0 + (S/(W_1*eta_1) + alpha_1)*numpy.log(d_1)/numpy.log(2) + (S/(eta_0*w_0) + alpha_0)*numpy.log(d_0)/numpy.log(2)


def broadcast__tree__torus_switch(S, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, t_0, w_0):
    return t_0 + (S/(W_1*eta_1) + alpha_1)*numpy.log(d_1)/numpy.log(2) + (S/(eta_0*w_0) + alpha_0)*numpy.log(d_0)/numpy.log(2)


def broadcast__tree__switch_switch_switch(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, t_0):
    return t_0 + (S/(W_0*eta_0) + alpha_0)*numpy.log(d_0)/numpy.log(2) + (S/(W_1*eta_1) + alpha_1)*numpy.log(d_1)/numpy.log(2) + (S/(W_2*eta_2) + alpha_2)*numpy.log(d_2)/numpy.log(2)


def broadcast__tree__mesh_switch_switch(S, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, t_0, w_0):
    return t_0 + (S/(W_1*eta_1) + alpha_1)*numpy.log(d_1)/numpy.log(2) + (S/(W_2*eta_2) + alpha_2)*numpy.log(d_2)/numpy.log(2) + (S/(eta_0*w_0) + alpha_0)*numpy.log(d_0)/numpy.log(2)


def broadcast__tree__torus_switch_switch(S, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, t_0, w_0):
    return t_0 + (S/(W_1*eta_1) + alpha_1)*numpy.log(d_1)/numpy.log(2) + (S/(W_2*eta_2) + alpha_2)*numpy.log(d_2)/numpy.log(2) + (S/(eta_0*w_0) + alpha_0)*numpy.log(d_0)/numpy.log(2)


def all_to_all__direct__switch(S, W_0, alpha_0, d_0, eta_0, q_0, t_0):
    return S*(d_0 - 1)/(d_0*numpy.minimum(W_0*eta_0, q_0*(d_0 - 1)/alpha_0)) + 2*alpha_0 + t_0


def all_to_all__direct__mesh(S, W_0, alpha_0, d_0, eta_0, q_0, t_0, w_0):
    return S*(d_0 - 1)/(d_0*numpy.minimum(eta_0*numpy.minimum(W_0, w_0*(d_0 - 1)), q_0*(d_0 - 1)/alpha_0)) + 2*alpha_0 + t_0


def all_to_all__direct__torus(S, W_0, alpha_0, d_0, eta_0, m_0, q_0, t_0, w_0):
    return S*(d_0 - 1)/(d_0*numpy.minimum(eta_0*numpy.minimum(W_0, 2*m_0*w_0), q_0*(d_0 - 1)/alpha_0)) + 2*alpha_0 + t_0


def all_to_all__direct__switch_switch(S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, q_0, q_1, t_0):
    return 2*alpha_1 + t_0 + numpy.maximum(S*(d_0 - 1)/(d_0*d_1*numpy.minimum(W_0*eta_0, q_0*(d_0 - 1)/alpha_0)), S*(d_0*d_1 - d_0)/(d_0*d_1*numpy.minimum(W_1*eta_1, q_1*(d_0*d_1 - d_0)/alpha_1)))


def all_to_all__direct__mesh_switch(S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, q_0, q_1, t_0, w_0):
    return 2*alpha_1 + t_0 + numpy.maximum(S*(d_0 - 1)/(d_0*d_1*numpy.minimum(eta_0*numpy.minimum(W_0, w_0*(d_0 - 1)), q_0*(d_0 - 1)/alpha_0)), S*(d_0*d_1 - d_0)/(d_0*d_1*numpy.minimum(W_1*eta_1, q_1*(d_0*d_1 - d_0)/alpha_1)))


def all_to_all__direct__torus_switch(S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, m_0, q_0, q_1, t_0, w_0):
    return 2*alpha_1 + t_0 + numpy.maximum(S*(d_0 - 1)/(d_0*d_1*numpy.minimum(eta_0*numpy.minimum(W_0, 2*m_0*w_0), q_0*(d_0 - 1)/alpha_0)), S*(d_0*d_1 - d_0)/(d_0*d_1*numpy.minimum(W_1*eta_1, q_1*(d_0*d_1 - d_0)/alpha_1)))


def all_to_all__direct__switch_switch_switch(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, q_0, q_1, q_2, t_0):
    return 2*alpha_2 + t_0 + numpy.maximum(numpy.maximum(S*(d_0 - 1)/(d_0*d_1*d_2*numpy.minimum(W_0*eta_0, q_0*(d_0 - 1)/alpha_0)), S*(d_0*d_1 - d_0)/(d_0*d_1*d_2*numpy.minimum(W_1*eta_1, q_1*(d_0*d_1 - d_0)/alpha_1))), S*(d_0*d_1*d_2 - d_0*d_1)/(d_0*d_1*d_2*numpy.minimum(W_2*eta_2, q_2*(d_0*d_1*d_2 - d_0*d_1)/alpha_2)))


def all_to_all__direct__mesh_switch_switch(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, q_0, q_1, q_2, t_0, w_0):
    return 2*alpha_2 + t_0 + numpy.maximum(numpy.maximum(S*(d_0 - 1)/(d_0*d_1*d_2*numpy.minimum(eta_0*numpy.minimum(W_0, w_0*(d_0 - 1)), q_0*(d_0 - 1)/alpha_0)), S*(d_0*d_1 - d_0)/(d_0*d_1*d_2*numpy.minimum(W_1*eta_1, q_1*(d_0*d_1 - d_0)/alpha_1))), S*(d_0*d_1*d_2 - d_0*d_1)/(d_0*d_1*d_2*numpy.minimum(W_2*eta_2, q_2*(d_0*d_1*d_2 - d_0*d_1)/alpha_2)))


def all_to_all__direct__torus_switch_switch(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, m_0, q_0, q_1, q_2, t_0, w_0):
    return 2*alpha_2 + t_0 + numpy.maximum(numpy.maximum(S*(d_0 - 1)/(d_0*d_1*d_2*numpy.minimum(eta_0*numpy.minimum(W_0, 2*m_0*w_0), q_0*(d_0 - 1)/alpha_0)), S*(d_0*d_1 - d_0)/(d_0*d_1*d_2*numpy.minimum(W_1*eta_1, q_1*(d_0*d_1 - d_0)/alpha_1))), S*(d_0*d_1*d_2 - d_0*d_1)/(d_0*d_1*d_2*numpy.minimum(W_2*eta_2, q_2*(d_0*d_1*d_2 - d_0*d_1)/alpha_2)))


def all_to_all__pairwise__switch(S, W_0, alpha_0, d_0, eta_0, q_0, t_0):
    return t_0 + (d_0 - 1)*(S/(d_0*numpy.minimum(W_0*eta_0, q_0/alpha_0)) + 2*alpha_0)


def all_to_all__pairwise__mesh(S, alpha_0, d_0, eta_0, q_0, t_0, w_0):
    return t_0 + (d_0 - 1)*(S/(d_0*numpy.minimum(q_0/alpha_0, eta_0*w_0)) + 2*alpha_0)


def all_to_all__pairwise__torus(S, alpha_0, d_0, eta_0, q_0, t_0, w_0):
    return t_0 + (d_0 - 1)*(S/(d_0*numpy.minimum(q_0/alpha_0, eta_0*w_0)) + 2*alpha_0)


def all_to_all__pairwise__switch_switch(S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, q_0, q_1, t_0):
    return t_0 + (d_0 - 1)*(S/(d_0*d_1*numpy.minimum(W_0*eta_0, q_0/alpha_0)) + 2*alpha_0) + (d_0*d_1 - d_0)*(S/(d_0*d_1*numpy.minimum(W_1*eta_1, q_1/alpha_1)) + 2*alpha_1)


def all_to_all__pairwise__mesh_switch(S, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, q_0, q_1, t_0, w_0):
    return t_0 + (d_0 - 1)*(S/(d_0*d_1*numpy.minimum(q_0/alpha_0, eta_0*w_0)) + 2*alpha_0) + (d_0*d_1 - d_0)*(S/(d_0*d_1*numpy.minimum(W_1*eta_1, q_1/alpha_1)) + 2*alpha_1)


def all_to_all__pairwise__torus_switch(S, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, q_0, q_1, t_0, w_0):
    return t_0 + (d_0 - 1)*(S/(d_0*d_1*numpy.minimum(q_0/alpha_0, eta_0*w_0)) + 2*alpha_0) + (d_0*d_1 - d_0)*(S/(d_0*d_1*numpy.minimum(W_1*eta_1, q_1/alpha_1)) + 2*alpha_1)


def all_to_all__pairwise__switch_switch_switch(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, q_0, q_1, q_2, t_0):
    return t_0 + (d_0 - 1)*(S/(d_0*d_1*d_2*numpy.minimum(W_0*eta_0, q_0/alpha_0)) + 2*alpha_0) + (d_0*d_1 - d_0)*(S/(d_0*d_1*d_2*numpy.minimum(W_1*eta_1, q_1/alpha_1)) + 2*alpha_1) + (d_0*d_1*d_2 - d_0*d_1)*(S/(d_0*d_1*d_2*numpy.minimum(W_2*eta_2, q_2/alpha_2)) + 2*alpha_2)


def all_to_all__pairwise__mesh_switch_switch(S, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, q_0, q_1, q_2, t_0, w_0):
    return t_0 + (d_0 - 1)*(S/(d_0*d_1*d_2*numpy.minimum(q_0/alpha_0, eta_0*w_0)) + 2*alpha_0) + (d_0*d_1 - d_0)*(S/(d_0*d_1*d_2*numpy.minimum(W_1*eta_1, q_1/alpha_1)) + 2*alpha_1) + (d_0*d_1*d_2 - d_0*d_1)*(S/(d_0*d_1*d_2*numpy.minimum(W_2*eta_2, q_2/alpha_2)) + 2*alpha_2)


def all_to_all__pairwise__torus_switch_switch(S, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, q_0, q_1, q_2, t_0, w_0):
    return t_0 + (d_0 - 1)*(S/(d_0*d_1*d_2*numpy.minimum(q_0/alpha_0, eta_0*w_0)) + 2*alpha_0) + (d_0*d_1 - d_0)*(S/(d_0*d_1*d_2*numpy.minimum(W_1*eta_1, q_1/alpha_1)) + 2*alpha_1) + (d_0*d_1*d_2 - d_0*d_1)*(S/(d_0*d_1*d_2*numpy.minimum(W_2*eta_2, q_2/alpha_2)) + 2*alpha_2)


def all_to_all__hierarchical__switch(S, W_0, alpha_0, d_0, eta_0, q_0, t_0):
    return S*(d_0 - 1)/(d_0*numpy.minimum(W_0*eta_0, q_0*(d_0 - 1)/alpha_0)) + 2*alpha_0 + t_0


def all_to_all__hierarchical__mesh(S, W_0, alpha_0, d_0, eta_0, q_0, t_0, w_0):
    return S*(d_0 - 1)/(d_0*numpy.minimum(eta_0*numpy.minimum(W_0, w_0*(d_0 - 1)), q_0*(d_0 - 1)/alpha_0)) + 2*alpha_0 + t_0


def all_to_all__hierarchical__torus(S, W_0, alpha_0, d_0, eta_0, m_0, q_0, t_0, w_0):
    return S*(d_0 - 1)/(d_0*numpy.minimum(eta_0*numpy.minimum(W_0, 2*m_0*w_0), q_0*(d_0 - 1)/alpha_0)) + 2*alpha_0 + t_0


def all_to_all__hierarchical__switch_switch(S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, q_0, q_1, t_0):
    return S*(d_1 - 1)/(d_1*numpy.minimum(W_1*eta_1, q_1*(d_1 - 1)/alpha_1)) + S*(d_0 - 1)/(d_0*numpy.minimum(W_0*eta_0, q_0*(d_0 - 1)/alpha_0)) + 2*alpha_0 + 2*alpha_1 + t_0


def all_to_all__hierarchical__mesh_switch(S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, q_0, q_1, t_0, w_0):
    return S*(d_1 - 1)/(d_1*numpy.minimum(W_1*eta_1, q_1*(d_1 - 1)/alpha_1)) + S*(d_0 - 1)/(d_0*numpy.minimum(eta_0*numpy.minimum(W_0, w_0*(d_0 - 1)), q_0*(d_0 - 1)/alpha_0)) + 2*alpha_0 + 2*alpha_1 + t_0


def all_to_all__hierarchical__torus_switch(S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, m_0, q_0, q_1, t_0, w_0):
    return S*(d_1 - 1)/(d_1*numpy.minimum(W_1*eta_1, q_1*(d_1 - 1)/alpha_1)) + S*(d_0 - 1)/(d_0*numpy.minimum(eta_0*numpy.minimum(W_0, 2*m_0*w_0), q_0*(d_0 - 1)/alpha_0)) + 2*alpha_0 + 2*alpha_1 + t_0


def all_to_all__hierarchical__switch_switch_switch(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, q_0, q_1, q_2, t_0):
    return S*(d_2 - 1)/(d_2*numpy.minimum(W_2*eta_2, q_2*(d_2 - 1)/alpha_2)) + S*(d_1 - 1)/(d_1*numpy.minimum(W_1*eta_1, q_1*(d_1 - 1)/alpha_1)) + S*(d_0 - 1)/(d_0*numpy.minimum(W_0*eta_0, q_0*(d_0 - 1)/alpha_0)) + 2*alpha_0 + 2*alpha_1 + 2*alpha_2 + t_0


def all_to_all__hierarchical__mesh_switch_switch(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, q_0, q_1, q_2, t_0, w_0):
    return S*(d_2 - 1)/(d_2*numpy.minimum(W_2*eta_2, q_2*(d_2 - 1)/alpha_2)) + S*(d_1 - 1)/(d_1*numpy.minimum(W_1*eta_1, q_1*(d_1 - 1)/alpha_1)) + S*(d_0 - 1)/(d_0*numpy.minimum(eta_0*numpy.minimum(W_0, w_0*(d_0 - 1)), q_0*(d_0 - 1)/alpha_0)) + 2*alpha_0 + 2*alpha_1 + 2*alpha_2 + t_0


def all_to_all__hierarchical__torus_switch_switch(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, m_0, q_0, q_1, q_2, t_0, w_0):
    return S*(d_2 - 1)/(d_2*numpy.minimum(W_2*eta_2, q_2*(d_2 - 1)/alpha_2)) + S*(d_1 - 1)/(d_1*numpy.minimum(W_1*eta_1, q_1*(d_1 - 1)/alpha_1)) + S*(d_0 - 1)/(d_0*numpy.minimum(eta_0*numpy.minimum(W_0, 2*m_0*w_0), q_0*(d_0 - 1)/alpha_0)) + 2*alpha_0 + 2*alpha_1 + 2*alpha_2 + t_0


def all_to_all__deepep_low_latency__switch(S, W_0, alpha_0, d_0, eta_0, t_0):
    return S*(d_0 - 1)/(W_0*d_0*eta_0) + 2*alpha_0 + t_0


def all_to_all__deepep_low_latency__mesh(S, W_0, alpha_0, d_0, eta_0, t_0, w_0):
    return S*(d_0 - 1)/(d_0*eta_0*numpy.minimum(W_0, w_0*(d_0 - 1))) + 2*alpha_0 + t_0


def all_to_all__deepep_low_latency__torus(S, W_0, alpha_0, d_0, eta_0, m_0, t_0, w_0):
    return S*(d_0 - 1)/(d_0*eta_0*numpy.minimum(W_0, 2*m_0*w_0)) + 2*alpha_0 + t_0


def all_to_all__deepep_low_latency__switch_switch(S, W_0, W_1, alpha_1, d_0, d_1, eta_0, eta_1, t_0):
    return 2*alpha_1 + t_0 + numpy.maximum(S*(d_0 - 1)/(W_0*d_0*d_1*eta_0), S*(d_0*d_1 - d_0)/(W_1*d_0*d_1*eta_1))


def all_to_all__deepep_low_latency__mesh_switch(S, W_0, W_1, alpha_1, d_0, d_1, eta_0, eta_1, t_0, w_0):
    return 2*alpha_1 + t_0 + numpy.maximum(S*(d_0*d_1 - d_0)/(W_1*d_0*d_1*eta_1), S*(d_0 - 1)/(d_0*d_1*eta_0*numpy.minimum(W_0, w_0*(d_0 - 1))))


def all_to_all__deepep_low_latency__torus_switch(S, W_0, W_1, alpha_1, d_0, d_1, eta_0, eta_1, m_0, t_0, w_0):
    return 2*alpha_1 + t_0 + numpy.maximum(S*(d_0*d_1 - d_0)/(W_1*d_0*d_1*eta_1), S*(d_0 - 1)/(d_0*d_1*eta_0*numpy.minimum(W_0, 2*m_0*w_0)))


def all_to_all__deepep_low_latency__switch_switch_switch(S, W_0, W_1, W_2, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, t_0):
    return 2*alpha_2 + t_0 + numpy.maximum(numpy.maximum(S*(d_0 - 1)/(W_0*d_0*d_1*d_2*eta_0), S*(d_0*d_1 - d_0)/(W_1*d_0*d_1*d_2*eta_1)), S*(d_0*d_1*d_2 - d_0*d_1)/(W_2*d_0*d_1*d_2*eta_2))


def all_to_all__deepep_low_latency__mesh_switch_switch(S, W_0, W_1, W_2, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, t_0, w_0):
    return 2*alpha_2 + t_0 + numpy.maximum(numpy.maximum(S*(d_0*d_1 - d_0)/(W_1*d_0*d_1*d_2*eta_1), S*(d_0*d_1*d_2 - d_0*d_1)/(W_2*d_0*d_1*d_2*eta_2)), S*(d_0 - 1)/(d_0*d_1*d_2*eta_0*numpy.minimum(W_0, w_0*(d_0 - 1))))


def all_to_all__deepep_low_latency__torus_switch_switch(S, W_0, W_1, W_2, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, m_0, t_0, w_0):
    return 2*alpha_2 + t_0 + numpy.maximum(numpy.maximum(S*(d_0*d_1 - d_0)/(W_1*d_0*d_1*d_2*eta_1), S*(d_0*d_1*d_2 - d_0*d_1)/(W_2*d_0*d_1*d_2*eta_2)), S*(d_0 - 1)/(d_0*d_1*d_2*eta_0*numpy.minimum(W_0, 2*m_0*w_0)))


def all_to_all__deepep_normal__switch(S, W_0, alpha_0, d_0, eta_0, moe_k, moe_nodes, t_0):
    return S*d_0*(1 - (1 - 1/(d_0*numpy.minimum(1, moe_nodes)))**moe_k)*numpy.minimum(1, moe_nodes)/(W_0*eta_0) + 2*alpha_0 + t_0


def all_to_all__deepep_normal__mesh(S, W_0, alpha_0, d_0, eta_0, moe_k, moe_nodes, t_0, w_0):
    return S*d_0*(1 - (1 - 1/(d_0*numpy.minimum(1, moe_nodes)))**moe_k)*numpy.minimum(1, moe_nodes)/(eta_0*numpy.minimum(W_0, w_0*(d_0 - 1))) + 2*alpha_0 + t_0


def all_to_all__deepep_normal__torus(S, W_0, alpha_0, d_0, eta_0, m_0, moe_k, moe_nodes, t_0, w_0):
    return S*d_0*(1 - (1 - 1/(d_0*numpy.minimum(1, moe_nodes)))**moe_k)*numpy.minimum(1, moe_nodes)/(eta_0*numpy.minimum(W_0, 2*m_0*w_0)) + 2*alpha_0 + t_0


def all_to_all__deepep_normal__switch_switch(S, W_0, W_1, alpha_1, d_0, d_1, eta_0, eta_1, moe_k, moe_nodes, t_0):
    return 2*alpha_1 + t_0 + numpy.maximum(S*((1 - (1 - 1/numpy.minimum(d_1, moe_nodes))**moe_k)*numpy.minimum(d_1, moe_nodes) - (1 - (1 - 1/numpy.minimum(d_1, moe_nodes))**moe_k)*numpy.minimum(d_1, moe_nodes)/d_1)/(W_1*eta_1), S*d_0*(1 - (1 - 1/(d_0*numpy.minimum(d_1, moe_nodes)))**moe_k)*numpy.minimum(d_1, moe_nodes)/(W_0*eta_0))


def all_to_all__deepep_normal__mesh_switch(S, W_0, W_1, alpha_1, d_0, d_1, eta_0, eta_1, moe_k, moe_nodes, t_0, w_0):
    return 2*alpha_1 + t_0 + numpy.maximum(S*((1 - (1 - 1/numpy.minimum(d_1, moe_nodes))**moe_k)*numpy.minimum(d_1, moe_nodes) - (1 - (1 - 1/numpy.minimum(d_1, moe_nodes))**moe_k)*numpy.minimum(d_1, moe_nodes)/d_1)/(W_1*eta_1), S*d_0*(1 - (1 - 1/(d_0*numpy.minimum(d_1, moe_nodes)))**moe_k)*numpy.minimum(d_1, moe_nodes)/(eta_0*numpy.minimum(W_0, w_0*(d_0 - 1))))


def all_to_all__deepep_normal__torus_switch(S, W_0, W_1, alpha_1, d_0, d_1, eta_0, eta_1, m_0, moe_k, moe_nodes, t_0, w_0):
    return 2*alpha_1 + t_0 + numpy.maximum(S*((1 - (1 - 1/numpy.minimum(d_1, moe_nodes))**moe_k)*numpy.minimum(d_1, moe_nodes) - (1 - (1 - 1/numpy.minimum(d_1, moe_nodes))**moe_k)*numpy.minimum(d_1, moe_nodes)/d_1)/(W_1*eta_1), S*d_0*(1 - (1 - 1/(d_0*numpy.minimum(d_1, moe_nodes)))**moe_k)*numpy.minimum(d_1, moe_nodes)/(eta_0*numpy.minimum(W_0, 2*m_0*w_0)))


def all_to_all__deepep_normal__switch_switch_switch(S, W_0, W_2, alpha_2, d_0, d_1, d_2, eta_0, eta_2, moe_k, moe_nodes, t_0):
    return 2*alpha_2 + t_0 + numpy.maximum(S*((1 - (1 - 1/numpy.minimum(moe_nodes, d_1*d_2))**moe_k)*numpy.minimum(moe_nodes, d_1*d_2) - (1 - (1 - 1/numpy.minimum(moe_nodes, d_1*d_2))**moe_k)*numpy.minimum(moe_nodes, d_1*d_2)/(d_1*d_2))/(W_2*eta_2), S*d_0*(1 - (1 - 1/(d_0*numpy.minimum(moe_nodes, d_1*d_2)))**moe_k)*numpy.minimum(moe_nodes, d_1*d_2)/(W_0*eta_0))


def all_to_all__deepep_normal__mesh_switch_switch(S, W_0, W_2, alpha_2, d_0, d_1, d_2, eta_0, eta_2, moe_k, moe_nodes, t_0, w_0):
    return 2*alpha_2 + t_0 + numpy.maximum(S*((1 - (1 - 1/numpy.minimum(moe_nodes, d_1*d_2))**moe_k)*numpy.minimum(moe_nodes, d_1*d_2) - (1 - (1 - 1/numpy.minimum(moe_nodes, d_1*d_2))**moe_k)*numpy.minimum(moe_nodes, d_1*d_2)/(d_1*d_2))/(W_2*eta_2), S*d_0*(1 - (1 - 1/(d_0*numpy.minimum(moe_nodes, d_1*d_2)))**moe_k)*numpy.minimum(moe_nodes, d_1*d_2)/(eta_0*numpy.minimum(W_0, w_0*(d_0 - 1))))


def all_to_all__deepep_normal__torus_switch_switch(S, W_0, W_2, alpha_2, d_0, d_1, d_2, eta_0, eta_2, m_0, moe_k, moe_nodes, t_0, w_0):
    return 2*alpha_2 + t_0 + numpy.maximum(S*((1 - (1 - 1/numpy.minimum(moe_nodes, d_1*d_2))**moe_k)*numpy.minimum(moe_nodes, d_1*d_2) - (1 - (1 - 1/numpy.minimum(moe_nodes, d_1*d_2))**moe_k)*numpy.minimum(moe_nodes, d_1*d_2)/(d_1*d_2))/(W_2*eta_2), S*d_0*(1 - (1 - 1/(d_0*numpy.minimum(moe_nodes, d_1*d_2)))**moe_k)*numpy.minimum(moe_nodes, d_1*d_2)/(eta_0*numpy.minimum(W_0, 2*m_0*w_0)))


def send_recv__direct__switch(S, W_0, alpha_0, eta_0, q_0, t_0):
    return S/numpy.minimum(W_0*eta_0, q_0/alpha_0) + 2*alpha_0 + t_0


def send_recv__direct__mesh(S, alpha_0, eta_0, q_0, t_0, w_0):
    return S/numpy.minimum(q_0/alpha_0, eta_0*w_0) + 2*alpha_0 + t_0


def send_recv__direct__torus(S, alpha_0, eta_0, q_0, t_0, w_0):
    return S/numpy.minimum(q_0/alpha_0, eta_0*w_0) + 2*alpha_0 + t_0


def send_recv__direct__switch_switch(S, W_1, alpha_1, eta_1, q_1, t_0):
    return S/numpy.minimum(W_1*eta_1, q_1/alpha_1) + 2*alpha_1 + t_0


def send_recv__direct__mesh_switch(S, W_1, alpha_1, eta_1, q_1, t_0):
    return S/numpy.minimum(W_1*eta_1, q_1/alpha_1) + 2*alpha_1 + t_0


def send_recv__direct__torus_switch(S, W_1, alpha_1, eta_1, q_1, t_0):
    return S/numpy.minimum(W_1*eta_1, q_1/alpha_1) + 2*alpha_1 + t_0


def send_recv__direct__switch_switch_switch(S, W_2, alpha_2, eta_2, q_2, t_0):
    return S/numpy.minimum(W_2*eta_2, q_2/alpha_2) + 2*alpha_2 + t_0


def send_recv__direct__mesh_switch_switch(S, W_2, alpha_2, eta_2, q_2, t_0):
    return S/numpy.minimum(W_2*eta_2, q_2/alpha_2) + 2*alpha_2 + t_0


def send_recv__direct__torus_switch_switch(S, W_2, alpha_2, eta_2, q_2, t_0):
    return S/numpy.minimum(W_2*eta_2, q_2/alpha_2) + 2*alpha_2 + t_0


def send_recv__rdma_write__switch(S, W_0, alpha_0, eta_0, n_nic, t_0):
    return S/(W_0*eta_0*n_nic) + 2*alpha_0 + t_0


def send_recv__rdma_write__mesh(S, W_0, alpha_0, d_0, eta_0, n_nic, t_0, w_0):
    return S/(eta_0*n_nic*numpy.minimum(W_0, w_0*(d_0 - 1))) + 2*alpha_0 + t_0


def send_recv__rdma_write__torus(S, W_0, alpha_0, eta_0, m_0, n_nic, t_0, w_0):
    return S/(eta_0*n_nic*numpy.minimum(W_0, 2*m_0*w_0)) + 2*alpha_0 + t_0


def send_recv__rdma_write__switch_switch(S, W_1, alpha_1, eta_1, n_nic, t_0):
    return S/(W_1*eta_1*n_nic) + 2*alpha_1 + t_0


def send_recv__rdma_write__mesh_switch(S, W_1, alpha_1, eta_1, n_nic, t_0):
    return S/(W_1*eta_1*n_nic) + 2*alpha_1 + t_0


def send_recv__rdma_write__torus_switch(S, W_1, alpha_1, eta_1, n_nic, t_0):
    return S/(W_1*eta_1*n_nic) + 2*alpha_1 + t_0


def send_recv__rdma_write__switch_switch_switch(S, W_2, alpha_2, eta_2, n_nic, t_0):
    return S/(W_2*eta_2*n_nic) + 2*alpha_2 + t_0


def send_recv__rdma_write__mesh_switch_switch(S, W_2, alpha_2, eta_2, n_nic, t_0):
    return S/(W_2*eta_2*n_nic) + 2*alpha_2 + t_0


def send_recv__rdma_write__torus_switch_switch(S, W_2, alpha_2, eta_2, n_nic, t_0):
    return S/(W_2*eta_2*n_nic) + 2*alpha_2 + t_0


def all_to_all__direct__switch_rail(S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, q_0, q_1, t_0):
    return alpha_0 + 2*alpha_1 + t_0 + numpy.maximum(S*((d_0 - 1)/(d_0*d_1) + (d_0 - 1)*(d_0*d_1 - d_0)/(d_0**2*d_1))/numpy.minimum(W_0*eta_0, q_0*(d_0 - 1)/alpha_0), S*(d_0*d_1 - d_0)/(d_0*d_1*numpy.minimum(W_1*eta_1, q_1*(d_0*d_1 - d_0)/alpha_1)))


def all_to_all__direct__mesh_rail(S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, q_0, q_1, t_0, w_0):
    return alpha_0 + 2*alpha_1 + t_0 + numpy.maximum(S*((d_0 - 1)/(d_0*d_1) + (d_0 - 1)*(d_0*d_1 - d_0)/(d_0**2*d_1))/numpy.minimum(eta_0*numpy.minimum(W_0, w_0*(d_0 - 1)), q_0*(d_0 - 1)/alpha_0), S*(d_0*d_1 - d_0)/(d_0*d_1*numpy.minimum(W_1*eta_1, q_1*(d_0*d_1 - d_0)/alpha_1)))


def all_to_all__direct__torus_rail(S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, m_0, q_0, q_1, t_0, w_0):
    return alpha_0 + 2*alpha_1 + t_0 + numpy.maximum(S*((d_0 - 1)/(d_0*d_1) + (d_0 - 1)*(d_0*d_1 - d_0)/(d_0**2*d_1))/numpy.minimum(eta_0*numpy.minimum(W_0, 2*m_0*w_0), q_0*(d_0 - 1)/alpha_0), S*(d_0*d_1 - d_0)/(d_0*d_1*numpy.minimum(W_1*eta_1, q_1*(d_0*d_1 - d_0)/alpha_1)))


def all_to_all__direct__switch_rail_rail(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, q_0, q_1, q_2, t_0):
    return alpha_0 + 2*alpha_2 + t_0 + numpy.maximum(numpy.maximum(S*((d_0 - 1)/(d_0*d_1*d_2) + (d_0 - 1)*(d_0*d_1*d_2 - d_0)/(d_0**2*d_1*d_2))/numpy.minimum(W_0*eta_0, q_0*(d_0 - 1)/alpha_0), S*(d_0*d_1 - d_0)/(d_0*d_1*d_2*numpy.minimum(W_1*eta_1, q_1*(d_0*d_1 - d_0)/alpha_1))), S*(d_0*d_1*d_2 - d_0*d_1)/(d_0*d_1*d_2*numpy.minimum(W_2*eta_2, q_2*(d_0*d_1*d_2 - d_0*d_1)/alpha_2)))


def all_to_all__direct__mesh_rail_rail(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, q_0, q_1, q_2, t_0, w_0):
    return alpha_0 + 2*alpha_2 + t_0 + numpy.maximum(numpy.maximum(S*((d_0 - 1)/(d_0*d_1*d_2) + (d_0 - 1)*(d_0*d_1*d_2 - d_0)/(d_0**2*d_1*d_2))/numpy.minimum(eta_0*numpy.minimum(W_0, w_0*(d_0 - 1)), q_0*(d_0 - 1)/alpha_0), S*(d_0*d_1 - d_0)/(d_0*d_1*d_2*numpy.minimum(W_1*eta_1, q_1*(d_0*d_1 - d_0)/alpha_1))), S*(d_0*d_1*d_2 - d_0*d_1)/(d_0*d_1*d_2*numpy.minimum(W_2*eta_2, q_2*(d_0*d_1*d_2 - d_0*d_1)/alpha_2)))


def all_to_all__direct__torus_rail_rail(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, m_0, q_0, q_1, q_2, t_0, w_0):
    return alpha_0 + 2*alpha_2 + t_0 + numpy.maximum(numpy.maximum(S*((d_0 - 1)/(d_0*d_1*d_2) + (d_0 - 1)*(d_0*d_1*d_2 - d_0)/(d_0**2*d_1*d_2))/numpy.minimum(eta_0*numpy.minimum(W_0, 2*m_0*w_0), q_0*(d_0 - 1)/alpha_0), S*(d_0*d_1 - d_0)/(d_0*d_1*d_2*numpy.minimum(W_1*eta_1, q_1*(d_0*d_1 - d_0)/alpha_1))), S*(d_0*d_1*d_2 - d_0*d_1)/(d_0*d_1*d_2*numpy.minimum(W_2*eta_2, q_2*(d_0*d_1*d_2 - d_0*d_1)/alpha_2)))


def all_to_all__pairwise__switch_rail(S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, q_0, q_1, t_0):
    return t_0 + (d_0 - 1)*(S/(d_0*d_1*numpy.minimum(W_0*eta_0, q_0/alpha_0)) + 2*alpha_0) + (d_0*d_1 - d_0)*(S/(d_0*d_1*numpy.minimum(W_1*eta_1, q_1/alpha_1)) + 2*alpha_1) + (d_0 - 1)*(d_0*d_1 - d_0)*(S/(d_0*d_1*numpy.minimum(W_0*eta_0, q_0/alpha_0)) + alpha_0)/d_0


def all_to_all__pairwise__mesh_rail(S, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, q_0, q_1, t_0, w_0):
    return t_0 + (d_0 - 1)*(S/(d_0*d_1*numpy.minimum(q_0/alpha_0, eta_0*w_0)) + 2*alpha_0) + (d_0*d_1 - d_0)*(S/(d_0*d_1*numpy.minimum(W_1*eta_1, q_1/alpha_1)) + 2*alpha_1) + (d_0 - 1)*(d_0*d_1 - d_0)*(S/(d_0*d_1*numpy.minimum(q_0/alpha_0, eta_0*w_0)) + alpha_0)/d_0


def all_to_all__pairwise__torus_rail(S, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, q_0, q_1, t_0, w_0):
    return t_0 + (d_0 - 1)*(S/(d_0*d_1*numpy.minimum(q_0/alpha_0, eta_0*w_0)) + 2*alpha_0) + (d_0*d_1 - d_0)*(S/(d_0*d_1*numpy.minimum(W_1*eta_1, q_1/alpha_1)) + 2*alpha_1) + (d_0 - 1)*(d_0*d_1 - d_0)*(S/(d_0*d_1*numpy.minimum(q_0/alpha_0, eta_0*w_0)) + alpha_0)/d_0


def all_to_all__pairwise__switch_rail_rail(S, W_0, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, q_0, q_1, q_2, t_0):
    return t_0 + (d_0 - 1)*(S/(d_0*d_1*d_2*numpy.minimum(W_0*eta_0, q_0/alpha_0)) + 2*alpha_0) + (d_0*d_1 - d_0)*(S/(d_0*d_1*d_2*numpy.minimum(W_1*eta_1, q_1/alpha_1)) + 2*alpha_1) + (d_0*d_1*d_2 - d_0*d_1)*(S/(d_0*d_1*d_2*numpy.minimum(W_2*eta_2, q_2/alpha_2)) + 2*alpha_2) + (d_0 - 1)*(d_0*d_1*d_2 - d_0)*(S/(d_0*d_1*d_2*numpy.minimum(W_0*eta_0, q_0/alpha_0)) + alpha_0)/d_0


def all_to_all__pairwise__mesh_rail_rail(S, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, q_0, q_1, q_2, t_0, w_0):
    return t_0 + (d_0 - 1)*(S/(d_0*d_1*d_2*numpy.minimum(q_0/alpha_0, eta_0*w_0)) + 2*alpha_0) + (d_0*d_1 - d_0)*(S/(d_0*d_1*d_2*numpy.minimum(W_1*eta_1, q_1/alpha_1)) + 2*alpha_1) + (d_0*d_1*d_2 - d_0*d_1)*(S/(d_0*d_1*d_2*numpy.minimum(W_2*eta_2, q_2/alpha_2)) + 2*alpha_2) + (d_0 - 1)*(d_0*d_1*d_2 - d_0)*(S/(d_0*d_1*d_2*numpy.minimum(q_0/alpha_0, eta_0*w_0)) + alpha_0)/d_0


def all_to_all__pairwise__torus_rail_rail(S, W_1, W_2, alpha_0, alpha_1, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, q_0, q_1, q_2, t_0, w_0):
    return t_0 + (d_0 - 1)*(S/(d_0*d_1*d_2*numpy.minimum(q_0/alpha_0, eta_0*w_0)) + 2*alpha_0) + (d_0*d_1 - d_0)*(S/(d_0*d_1*d_2*numpy.minimum(W_1*eta_1, q_1/alpha_1)) + 2*alpha_1) + (d_0*d_1*d_2 - d_0*d_1)*(S/(d_0*d_1*d_2*numpy.minimum(W_2*eta_2, q_2/alpha_2)) + 2*alpha_2) + (d_0 - 1)*(d_0*d_1*d_2 - d_0)*(S/(d_0*d_1*d_2*numpy.minimum(q_0/alpha_0, eta_0*w_0)) + alpha_0)/d_0


def all_to_all__deepep_low_latency__switch_rail(S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, t_0):
    return alpha_0 + 2*alpha_1 + t_0 + numpy.maximum(S*((d_0 - 1)/(d_0*d_1) + (d_0 - 1)*(d_0*d_1 - d_0)/(d_0**2*d_1))/(W_0*eta_0), S*(d_0*d_1 - d_0)/(W_1*d_0*d_1*eta_1))


def all_to_all__deepep_low_latency__mesh_rail(S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, t_0, w_0):
    return alpha_0 + 2*alpha_1 + t_0 + numpy.maximum(S*((d_0 - 1)/(d_0*d_1) + (d_0 - 1)*(d_0*d_1 - d_0)/(d_0**2*d_1))/(eta_0*numpy.minimum(W_0, w_0*(d_0 - 1))), S*(d_0*d_1 - d_0)/(W_1*d_0*d_1*eta_1))


def all_to_all__deepep_low_latency__torus_rail(S, W_0, W_1, alpha_0, alpha_1, d_0, d_1, eta_0, eta_1, m_0, t_0, w_0):
    return alpha_0 + 2*alpha_1 + t_0 + numpy.maximum(S*((d_0 - 1)/(d_0*d_1) + (d_0 - 1)*(d_0*d_1 - d_0)/(d_0**2*d_1))/(eta_0*numpy.minimum(W_0, 2*m_0*w_0)), S*(d_0*d_1 - d_0)/(W_1*d_0*d_1*eta_1))


def all_to_all__deepep_low_latency__switch_rail_rail(S, W_0, W_1, W_2, alpha_0, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, t_0):
    return alpha_0 + 2*alpha_2 + t_0 + numpy.maximum(numpy.maximum(S*((d_0 - 1)/(d_0*d_1*d_2) + (d_0 - 1)*(d_0*d_1*d_2 - d_0)/(d_0**2*d_1*d_2))/(W_0*eta_0), S*(d_0*d_1 - d_0)/(W_1*d_0*d_1*d_2*eta_1)), S*(d_0*d_1*d_2 - d_0*d_1)/(W_2*d_0*d_1*d_2*eta_2))


def all_to_all__deepep_low_latency__mesh_rail_rail(S, W_0, W_1, W_2, alpha_0, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, t_0, w_0):
    return alpha_0 + 2*alpha_2 + t_0 + numpy.maximum(numpy.maximum(S*((d_0 - 1)/(d_0*d_1*d_2) + (d_0 - 1)*(d_0*d_1*d_2 - d_0)/(d_0**2*d_1*d_2))/(eta_0*numpy.minimum(W_0, w_0*(d_0 - 1))), S*(d_0*d_1 - d_0)/(W_1*d_0*d_1*d_2*eta_1)), S*(d_0*d_1*d_2 - d_0*d_1)/(W_2*d_0*d_1*d_2*eta_2))


def all_to_all__deepep_low_latency__torus_rail_rail(S, W_0, W_1, W_2, alpha_0, alpha_2, d_0, d_1, d_2, eta_0, eta_1, eta_2, m_0, t_0, w_0):
    return alpha_0 + 2*alpha_2 + t_0 + numpy.maximum(numpy.maximum(S*((d_0 - 1)/(d_0*d_1*d_2) + (d_0 - 1)*(d_0*d_1*d_2 - d_0)/(d_0**2*d_1*d_2))/(eta_0*numpy.minimum(W_0, 2*m_0*w_0)), S*(d_0*d_1 - d_0)/(W_1*d_0*d_1*d_2*eta_1)), S*(d_0*d_1*d_2 - d_0*d_1)/(W_2*d_0*d_1*d_2*eta_2))


FUNCTIONS = {
    'all_reduce__ring__switch': (all_reduce__ring__switch, ('B_p', 'S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 'kappa_p', 't_0'), '633f922b11d852c4'),
    'all_reduce__ring__mesh': (all_reduce__ring__mesh, ('B_p', 'S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 'kappa_p', 't_0', 'w_0'), '0dd5be488e9f426f'),
    'all_reduce__ring__torus': (all_reduce__ring__torus, ('B_p', 'S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 'kappa_p', 'm_0', 't_0', 'w_0'), 'ae460b9b78538c75'),
    'all_reduce__ring__switch_switch': (all_reduce__ring__switch_switch, ('B_p', 'S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'kappa_p', 't_0'), '4c2ac0d16ab8a867'),
    'all_reduce__ring__mesh_switch': (all_reduce__ring__mesh_switch, ('B_p', 'S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'kappa_p', 't_0', 'w_0'), '475d7c71000f83c2'),
    'all_reduce__ring__torus_switch': (all_reduce__ring__torus_switch, ('B_p', 'S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'kappa_p', 'm_0', 't_0', 'w_0'), '747ca534890270b1'),
    'all_reduce__ring__switch_switch_switch': (all_reduce__ring__switch_switch_switch, ('B_p', 'S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'kappa_p', 't_0'), '8209308f848c97dc'),
    'all_reduce__ring__mesh_switch_switch': (all_reduce__ring__mesh_switch_switch, ('B_p', 'S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'kappa_p', 't_0', 'w_0'), '117fea2c871fbb77'),
    'all_reduce__ring__torus_switch_switch': (all_reduce__ring__torus_switch_switch, ('B_p', 'S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'kappa_p', 'm_0', 't_0', 'w_0'), 'f0cea6799f98aa7c'),
    'all_reduce__tree__switch': (all_reduce__tree__switch, ('B_p', 'S', 'W_0', 'alpha_0', 'eta_0', 'h_0', 'kappa_p', 'kappa_tree', 't_0'), 'b612a58b5cbb93e1'),
    'all_reduce__tree__mesh': (all_reduce__tree__mesh, ('B_p', 'S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 'h_0', 'kappa_p', 'kappa_tree', 't_0', 'w_0'), 'b21fc12c1c8679f9'),
    'all_reduce__tree__torus': (all_reduce__tree__torus, ('B_p', 'S', 'W_0', 'alpha_0', 'eta_0', 'h_0', 'kappa_p', 'kappa_tree', 'm_0', 't_0', 'w_0'), 'f53cd78964301311'),
    'all_reduce__tree__switch_switch': (all_reduce__tree__switch_switch, ('B_p', 'S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'eta_0', 'eta_1', 'h_0', 'h_1', 'kappa_p', 'kappa_tree', 't_0'), 'b94c4d7631330250'),
    'all_reduce__tree__mesh_switch': (all_reduce__tree__mesh_switch, ('B_p', 'S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'eta_0', 'eta_1', 'h_0', 'h_1', 'kappa_p', 'kappa_tree', 't_0', 'w_0'), 'e1ac51359aeacb14'),
    'all_reduce__tree__torus_switch': (all_reduce__tree__torus_switch, ('B_p', 'S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'eta_0', 'eta_1', 'h_0', 'h_1', 'kappa_p', 'kappa_tree', 'm_0', 't_0', 'w_0'), '44f6a4beace6c379'),
    'all_reduce__tree__switch_switch_switch': (all_reduce__tree__switch_switch_switch, ('B_p', 'S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'eta_0', 'eta_1', 'eta_2', 'h_0', 'h_1', 'h_2', 'kappa_p', 'kappa_tree', 't_0'), '1d1d109af5af1cdd'),
    'all_reduce__tree__mesh_switch_switch': (all_reduce__tree__mesh_switch_switch, ('B_p', 'S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'eta_0', 'eta_1', 'eta_2', 'h_0', 'h_1', 'h_2', 'kappa_p', 'kappa_tree', 't_0', 'w_0'), 'ea50b44a064f661a'),
    'all_reduce__tree__torus_switch_switch': (all_reduce__tree__torus_switch_switch, ('B_p', 'S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'eta_0', 'eta_1', 'eta_2', 'h_0', 'h_1', 'h_2', 'kappa_p', 'kappa_tree', 'm_0', 't_0', 'w_0'), '057c9bbc4541778b'),
    'all_reduce__recursive_doubling__switch': (all_reduce__recursive_doubling__switch, ('S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 't_0'), 'e57dae859f3ffaf8'),
    'all_reduce__recursive_doubling__mesh': (all_reduce__recursive_doubling__mesh, ('S', 'alpha_0', 'd_0', 'eta_0', 't_0', 'w_0'), '5f769fe6206023c3'),
    'all_reduce__recursive_doubling__torus': (all_reduce__recursive_doubling__torus, ('S', 'alpha_0', 'd_0', 'eta_0', 't_0', 'w_0'), '5f769fe6206023c3'),
    'all_reduce__recursive_doubling__switch_switch': (all_reduce__recursive_doubling__switch_switch, ('S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 't_0'), 'e7610847b13ceb0c'),
    'all_reduce__recursive_doubling__mesh_switch': (all_reduce__recursive_doubling__mesh_switch, ('S', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 't_0', 'w_0'), 'e73f02538527e839'),
    'all_reduce__recursive_doubling__torus_switch': (all_reduce__recursive_doubling__torus_switch, ('S', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 't_0', 'w_0'), 'e73f02538527e839'),
    'all_reduce__recursive_doubling__switch_switch_switch': (all_reduce__recursive_doubling__switch_switch_switch, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 't_0'), '5518b8557ca8ca11'),
    'all_reduce__recursive_doubling__mesh_switch_switch': (all_reduce__recursive_doubling__mesh_switch_switch, ('S', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 't_0', 'w_0'), 'a2e13cb87cc070a0'),
    'all_reduce__recursive_doubling__torus_switch_switch': (all_reduce__recursive_doubling__torus_switch_switch, ('S', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 't_0', 'w_0'), 'a2e13cb87cc070a0'),
    'all_reduce__rabenseifner__switch': (all_reduce__rabenseifner__switch, ('S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 't_0'), '1eaf8ee595ad5e6a'),
    'all_reduce__rabenseifner__mesh': (all_reduce__rabenseifner__mesh, ('S', 'alpha_0', 'd_0', 'eta_0', 't_0', 'w_0'), '4f5e0b541922c300'),
    'all_reduce__rabenseifner__torus': (all_reduce__rabenseifner__torus, ('S', 'alpha_0', 'd_0', 'eta_0', 't_0', 'w_0'), '4f5e0b541922c300'),
    'all_reduce__rabenseifner__switch_switch': (all_reduce__rabenseifner__switch_switch, ('S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 't_0'), '2ad4a990214680c5'),
    'all_reduce__rabenseifner__mesh_switch': (all_reduce__rabenseifner__mesh_switch, ('S', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 't_0', 'w_0'), 'e68289eff3b87f4d'),
    'all_reduce__rabenseifner__torus_switch': (all_reduce__rabenseifner__torus_switch, ('S', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 't_0', 'w_0'), 'e68289eff3b87f4d'),
    'all_reduce__rabenseifner__switch_switch_switch': (all_reduce__rabenseifner__switch_switch_switch, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 't_0'), 'dfbebb94bc7fe607'),
    'all_reduce__rabenseifner__mesh_switch_switch': (all_reduce__rabenseifner__mesh_switch_switch, ('S', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 't_0', 'w_0'), '8005c70e91e135d0'),
    'all_reduce__rabenseifner__torus_switch_switch': (all_reduce__rabenseifner__torus_switch_switch, ('S', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 't_0', 'w_0'), '8005c70e91e135d0'),
    'all_reduce__hierarchical__switch': (all_reduce__hierarchical__switch, ('S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 't_0'), 'efbfa5ffb77fc2eb'),
    'all_reduce__hierarchical__mesh': (all_reduce__hierarchical__mesh, ('S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 't_0', 'w_0'), '766532f90499669c'),
    'all_reduce__hierarchical__torus': (all_reduce__hierarchical__torus, ('S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 'm_0', 't_0', 'w_0'), 'a92f3ba9531b8ab3'),
    'all_reduce__hierarchical__switch_switch': (all_reduce__hierarchical__switch_switch, ('S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 't_0'), '0f7e179d475e24ce'),
    'all_reduce__hierarchical__mesh_switch': (all_reduce__hierarchical__mesh_switch, ('S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 't_0', 'w_0'), 'a87686529d18c6aa'),
    'all_reduce__hierarchical__torus_switch': (all_reduce__hierarchical__torus_switch, ('S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'm_0', 't_0', 'w_0'), 'a5a6122d83c500ed'),
    'all_reduce__hierarchical__switch_switch_switch': (all_reduce__hierarchical__switch_switch_switch, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 't_0'), '90e250b25f3ade1a'),
    'all_reduce__hierarchical__mesh_switch_switch': (all_reduce__hierarchical__mesh_switch_switch, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 't_0', 'w_0'), '44cc54b7edbe7bcd'),
    'all_reduce__hierarchical__torus_switch_switch': (all_reduce__hierarchical__torus_switch_switch, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'm_0', 't_0', 'w_0'), '442e37c7cedd1557'),
    'all_reduce__in_network__switch__inr1': (all_reduce__in_network__switch__inr1, ('S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 'kappa_inr', 't_0'), '8116e57296d8598f'),
    'all_reduce__in_network__switch_switch__inr01': (all_reduce__in_network__switch_switch__inr01, ('S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'h_0', 'kappa_inr', 't_0'), '0eb5e0f3e6624e4c'),
    'all_reduce__in_network__switch_switch__inr10': (all_reduce__in_network__switch_switch__inr10, ('S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'h_1', 'kappa_inr', 't_0'), 'a0e5a90eb5652ba8'),
    'all_reduce__in_network__switch_switch__inr11': (all_reduce__in_network__switch_switch__inr11, ('S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'kappa_inr', 't_0'), '8e839a16b10b026a'),
    'all_reduce__in_network__mesh_switch__inr01': (all_reduce__in_network__mesh_switch__inr01, ('S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'h_0', 'kappa_inr', 't_0', 'w_0'), '3beab05e6919eedc'),
    'all_reduce__in_network__torus_switch__inr01': (all_reduce__in_network__torus_switch__inr01, ('S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'h_0', 'kappa_inr', 'm_0', 't_0', 'w_0'), '3702e04fb5aed5ee'),
    'all_reduce__in_network__switch_switch_switch__inr001': (all_reduce__in_network__switch_switch_switch__inr001, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'h_0', 'h_1', 'kappa_inr', 't_0'), '188e339382b431d5'),
    'all_reduce__in_network__switch_switch_switch__inr010': (all_reduce__in_network__switch_switch_switch__inr010, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'h_0', 'h_2', 'kappa_inr', 't_0'), 'd69f090f133df938'),
    'all_reduce__in_network__switch_switch_switch__inr011': (all_reduce__in_network__switch_switch_switch__inr011, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'h_0', 'kappa_inr', 't_0'), '1cb6aa549832d1c8'),
    'all_reduce__in_network__switch_switch_switch__inr100': (all_reduce__in_network__switch_switch_switch__inr100, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'h_1', 'h_2', 'kappa_inr', 't_0'), '46f33ad5fb403ad5'),
    'all_reduce__in_network__switch_switch_switch__inr101': (all_reduce__in_network__switch_switch_switch__inr101, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'h_1', 'kappa_inr', 't_0'), '8ff7f8b4c1e36991'),
    'all_reduce__in_network__switch_switch_switch__inr110': (all_reduce__in_network__switch_switch_switch__inr110, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'h_2', 'kappa_inr', 't_0'), 'ccb446a244638d9c'),
    'all_reduce__in_network__switch_switch_switch__inr111': (all_reduce__in_network__switch_switch_switch__inr111, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'kappa_inr', 't_0'), 'ab8d8cc271ebb9a2'),
    'all_reduce__in_network__mesh_switch_switch__inr001': (all_reduce__in_network__mesh_switch_switch__inr001, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'h_0', 'h_1', 'kappa_inr', 't_0', 'w_0'), 'ac10247087f03204'),
    'all_reduce__in_network__mesh_switch_switch__inr010': (all_reduce__in_network__mesh_switch_switch__inr010, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'h_0', 'h_2', 'kappa_inr', 't_0', 'w_0'), '33fa80e7b7346f7c'),
    'all_reduce__in_network__mesh_switch_switch__inr011': (all_reduce__in_network__mesh_switch_switch__inr011, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'h_0', 'kappa_inr', 't_0', 'w_0'), '0f4b8e353ab17b40'),
    'all_reduce__in_network__torus_switch_switch__inr001': (all_reduce__in_network__torus_switch_switch__inr001, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'h_0', 'h_1', 'kappa_inr', 'm_0', 't_0', 'w_0'), '9371f16dc8db5ccb'),
    'all_reduce__in_network__torus_switch_switch__inr010': (all_reduce__in_network__torus_switch_switch__inr010, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'h_0', 'h_2', 'kappa_inr', 'm_0', 't_0', 'w_0'), '42932dd52eadf7ce'),
    'all_reduce__in_network__torus_switch_switch__inr011': (all_reduce__in_network__torus_switch_switch__inr011, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'h_0', 'kappa_inr', 'm_0', 't_0', 'w_0'), '73cd90a41dc1e1b9'),
    'all_reduce__star__switch': (all_reduce__star__switch, ('S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 't_0'), '28170533773b9b78'),
    'all_reduce__star__mesh': (all_reduce__star__mesh, ('S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 't_0', 'w_0'), 'a566ed4dfcc39aa4'),
    'all_reduce__star__torus': (all_reduce__star__torus, ('S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 'm_0', 't_0', 'w_0'), '361e353670b19baf'),
    'all_reduce__star__switch_switch': (all_reduce__star__switch_switch, ('S', 'W_0', 'W_1', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 't_0'), '20218257ac8800ea'),
    'all_reduce__star__mesh_switch': (all_reduce__star__mesh_switch, ('S', 'W_0', 'W_1', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 't_0', 'w_0'), 'f8f73c450364a972'),
    'all_reduce__star__torus_switch': (all_reduce__star__torus_switch, ('S', 'W_0', 'W_1', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'm_0', 't_0', 'w_0'), '20d04247aaab9519'),
    'all_reduce__star__switch_switch_switch': (all_reduce__star__switch_switch_switch, ('S', 'W_0', 'W_1', 'W_2', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 't_0'), '23359e44e04b3988'),
    'all_reduce__star__mesh_switch_switch': (all_reduce__star__mesh_switch_switch, ('S', 'W_0', 'W_1', 'W_2', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 't_0', 'w_0'), 'fde28a861a4e2a5a'),
    'all_reduce__star__torus_switch_switch': (all_reduce__star__torus_switch_switch, ('S', 'W_0', 'W_1', 'W_2', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'm_0', 't_0', 'w_0'), '151937065366c5d7'),
    'reduce_scatter__ring__switch': (reduce_scatter__ring__switch, ('B_p', 'S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 'kappa_p', 't_0'), '2a8419f57438eacb'),
    'reduce_scatter__ring__mesh': (reduce_scatter__ring__mesh, ('B_p', 'S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 'kappa_p', 't_0', 'w_0'), 'cfc7b709c8217971'),
    'reduce_scatter__ring__torus': (reduce_scatter__ring__torus, ('B_p', 'S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 'kappa_p', 'm_0', 't_0', 'w_0'), '220b15e6d5846895'),
    'reduce_scatter__ring__switch_switch': (reduce_scatter__ring__switch_switch, ('B_p', 'S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'kappa_p', 't_0'), 'c09cc5275f480f34'),
    'reduce_scatter__ring__mesh_switch': (reduce_scatter__ring__mesh_switch, ('B_p', 'S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'kappa_p', 't_0', 'w_0'), '22d573e7b8d49d77'),
    'reduce_scatter__ring__torus_switch': (reduce_scatter__ring__torus_switch, ('B_p', 'S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'kappa_p', 'm_0', 't_0', 'w_0'), '2cc7dcdbd5722eb4'),
    'reduce_scatter__ring__switch_switch_switch': (reduce_scatter__ring__switch_switch_switch, ('B_p', 'S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'kappa_p', 't_0'), '9af4bcd0d3b692f1'),
    'reduce_scatter__ring__mesh_switch_switch': (reduce_scatter__ring__mesh_switch_switch, ('B_p', 'S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'kappa_p', 't_0', 'w_0'), 'efcd2d070bdfe689'),
    'reduce_scatter__ring__torus_switch_switch': (reduce_scatter__ring__torus_switch_switch, ('B_p', 'S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'kappa_p', 'm_0', 't_0', 'w_0'), '3eef593999244799'),
    'reduce_scatter__recursive_halving__switch': (reduce_scatter__recursive_halving__switch, ('S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 't_0'), 'ff914fd53a9bd64c'),
    'reduce_scatter__recursive_halving__mesh': (reduce_scatter__recursive_halving__mesh, ('S', 'alpha_0', 'd_0', 'eta_0', 't_0', 'w_0'), '9a06546935ea6c73'),
    'reduce_scatter__recursive_halving__torus': (reduce_scatter__recursive_halving__torus, ('S', 'alpha_0', 'd_0', 'eta_0', 't_0', 'w_0'), '9a06546935ea6c73'),
    'reduce_scatter__recursive_halving__switch_switch': (reduce_scatter__recursive_halving__switch_switch, ('S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 't_0'), 'f9ecefc51ab07183'),
    'reduce_scatter__recursive_halving__mesh_switch': (reduce_scatter__recursive_halving__mesh_switch, ('S', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 't_0', 'w_0'), '8cfe28a084f03e0c'),
    'reduce_scatter__recursive_halving__torus_switch': (reduce_scatter__recursive_halving__torus_switch, ('S', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 't_0', 'w_0'), '8cfe28a084f03e0c'),
    'reduce_scatter__recursive_halving__switch_switch_switch': (reduce_scatter__recursive_halving__switch_switch_switch, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 't_0'), '664f8cddbce1db93'),
    'reduce_scatter__recursive_halving__mesh_switch_switch': (reduce_scatter__recursive_halving__mesh_switch_switch, ('S', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 't_0', 'w_0'), '444b1833aa45970f'),
    'reduce_scatter__recursive_halving__torus_switch_switch': (reduce_scatter__recursive_halving__torus_switch_switch, ('S', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 't_0', 'w_0'), '444b1833aa45970f'),
    'reduce_scatter__hierarchical__switch': (reduce_scatter__hierarchical__switch, ('S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 't_0'), '08acdac607e5b541'),
    'reduce_scatter__hierarchical__mesh': (reduce_scatter__hierarchical__mesh, ('S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 't_0', 'w_0'), 'e8fbcc8ee048b16d'),
    'reduce_scatter__hierarchical__torus': (reduce_scatter__hierarchical__torus, ('S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 'm_0', 't_0', 'w_0'), '3b39b4384b811c55'),
    'reduce_scatter__hierarchical__switch_switch': (reduce_scatter__hierarchical__switch_switch, ('S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 't_0'), '434bc3b38e874eef'),
    'reduce_scatter__hierarchical__mesh_switch': (reduce_scatter__hierarchical__mesh_switch, ('S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 't_0', 'w_0'), 'c0043fb7d8fe0865'),
    'reduce_scatter__hierarchical__torus_switch': (reduce_scatter__hierarchical__torus_switch, ('S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'm_0', 't_0', 'w_0'), '56de865cfbfcf25e'),
    'reduce_scatter__hierarchical__switch_switch_switch': (reduce_scatter__hierarchical__switch_switch_switch, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 't_0'), 'ce700eb96eeac77a'),
    'reduce_scatter__hierarchical__mesh_switch_switch': (reduce_scatter__hierarchical__mesh_switch_switch, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 't_0', 'w_0'), '1df680cbaed2c5c4'),
    'reduce_scatter__hierarchical__torus_switch_switch': (reduce_scatter__hierarchical__torus_switch_switch, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'm_0', 't_0', 'w_0'), '545079e982093ec7'),
    'all_gather__ring__switch': (all_gather__ring__switch, ('B_p', 'S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 'kappa_p', 't_0'), '2a8419f57438eacb'),
    'all_gather__ring__mesh': (all_gather__ring__mesh, ('B_p', 'S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 'kappa_p', 't_0', 'w_0'), 'cfc7b709c8217971'),
    'all_gather__ring__torus': (all_gather__ring__torus, ('B_p', 'S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 'kappa_p', 'm_0', 't_0', 'w_0'), '220b15e6d5846895'),
    'all_gather__ring__switch_switch': (all_gather__ring__switch_switch, ('B_p', 'S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'kappa_p', 't_0'), 'c09cc5275f480f34'),
    'all_gather__ring__mesh_switch': (all_gather__ring__mesh_switch, ('B_p', 'S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'kappa_p', 't_0', 'w_0'), '22d573e7b8d49d77'),
    'all_gather__ring__torus_switch': (all_gather__ring__torus_switch, ('B_p', 'S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'kappa_p', 'm_0', 't_0', 'w_0'), '2cc7dcdbd5722eb4'),
    'all_gather__ring__switch_switch_switch': (all_gather__ring__switch_switch_switch, ('B_p', 'S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'kappa_p', 't_0'), '9af4bcd0d3b692f1'),
    'all_gather__ring__mesh_switch_switch': (all_gather__ring__mesh_switch_switch, ('B_p', 'S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'kappa_p', 't_0', 'w_0'), 'efcd2d070bdfe689'),
    'all_gather__ring__torus_switch_switch': (all_gather__ring__torus_switch_switch, ('B_p', 'S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'kappa_p', 'm_0', 't_0', 'w_0'), '3eef593999244799'),
    'all_gather__recursive_doubling__switch': (all_gather__recursive_doubling__switch, ('S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 't_0'), 'ff914fd53a9bd64c'),
    'all_gather__recursive_doubling__mesh': (all_gather__recursive_doubling__mesh, ('S', 'alpha_0', 'd_0', 'eta_0', 't_0', 'w_0'), '9a06546935ea6c73'),
    'all_gather__recursive_doubling__torus': (all_gather__recursive_doubling__torus, ('S', 'alpha_0', 'd_0', 'eta_0', 't_0', 'w_0'), '9a06546935ea6c73'),
    'all_gather__recursive_doubling__switch_switch': (all_gather__recursive_doubling__switch_switch, ('S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 't_0'), 'f9ecefc51ab07183'),
    'all_gather__recursive_doubling__mesh_switch': (all_gather__recursive_doubling__mesh_switch, ('S', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 't_0', 'w_0'), '8cfe28a084f03e0c'),
    'all_gather__recursive_doubling__torus_switch': (all_gather__recursive_doubling__torus_switch, ('S', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 't_0', 'w_0'), '8cfe28a084f03e0c'),
    'all_gather__recursive_doubling__switch_switch_switch': (all_gather__recursive_doubling__switch_switch_switch, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 't_0'), '664f8cddbce1db93'),
    'all_gather__recursive_doubling__mesh_switch_switch': (all_gather__recursive_doubling__mesh_switch_switch, ('S', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 't_0', 'w_0'), '444b1833aa45970f'),
    'all_gather__recursive_doubling__torus_switch_switch': (all_gather__recursive_doubling__torus_switch_switch, ('S', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 't_0', 'w_0'), '444b1833aa45970f'),
    'all_gather__hierarchical__switch': (all_gather__hierarchical__switch, ('S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 't_0'), '08acdac607e5b541'),
    'all_gather__hierarchical__mesh': (all_gather__hierarchical__mesh, ('S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 't_0', 'w_0'), 'e8fbcc8ee048b16d'),
    'all_gather__hierarchical__torus': (all_gather__hierarchical__torus, ('S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 'm_0', 't_0', 'w_0'), '3b39b4384b811c55'),
    'all_gather__hierarchical__switch_switch': (all_gather__hierarchical__switch_switch, ('S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 't_0'), '434bc3b38e874eef'),
    'all_gather__hierarchical__mesh_switch': (all_gather__hierarchical__mesh_switch, ('S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 't_0', 'w_0'), 'c0043fb7d8fe0865'),
    'all_gather__hierarchical__torus_switch': (all_gather__hierarchical__torus_switch, ('S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'm_0', 't_0', 'w_0'), '56de865cfbfcf25e'),
    'all_gather__hierarchical__switch_switch_switch': (all_gather__hierarchical__switch_switch_switch, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 't_0'), 'ce700eb96eeac77a'),
    'all_gather__hierarchical__mesh_switch_switch': (all_gather__hierarchical__mesh_switch_switch, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 't_0', 'w_0'), '1df680cbaed2c5c4'),
    'all_gather__hierarchical__torus_switch_switch': (all_gather__hierarchical__torus_switch_switch, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'm_0', 't_0', 'w_0'), '545079e982093ec7'),
    'broadcast__ring__switch': (broadcast__ring__switch, ('B_p', 'S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 'kappa_p', 't_0'), '3119451414cade37'),
    'broadcast__ring__mesh': (broadcast__ring__mesh, ('B_p', 'S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 'kappa_p', 't_0', 'w_0'), 'ad90ab38bb84e11d'),
    'broadcast__ring__torus': (broadcast__ring__torus, ('B_p', 'S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 'kappa_p', 'm_0', 't_0', 'w_0'), '58f78f8684bafbd7'),
    'broadcast__ring__switch_switch': (broadcast__ring__switch_switch, ('B_p', 'S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'kappa_p', 't_0'), '6c50bd7696800981'),
    'broadcast__ring__mesh_switch': (broadcast__ring__mesh_switch, ('B_p', 'S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'kappa_p', 't_0', 'w_0'), '64e100b396204584'),
    'broadcast__ring__torus_switch': (broadcast__ring__torus_switch, ('B_p', 'S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'kappa_p', 'm_0', 't_0', 'w_0'), 'bb6eeea4fc0aaa2a'),
    'broadcast__ring__switch_switch_switch': (broadcast__ring__switch_switch_switch, ('B_p', 'S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'kappa_p', 't_0'), '46c7925844a5927c'),
    'broadcast__ring__mesh_switch_switch': (broadcast__ring__mesh_switch_switch, ('B_p', 'S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'kappa_p', 't_0', 'w_0'), '9935a069f6d14948'),
    'broadcast__ring__torus_switch_switch': (broadcast__ring__torus_switch_switch, ('B_p', 'S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'kappa_p', 'm_0', 't_0', 'w_0'), '97e5e57bbbf04010'),
    'broadcast__tree__switch': (broadcast__tree__switch, ('S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 't_0'), 'e57dae859f3ffaf8'),
    'broadcast__tree__mesh': (broadcast__tree__mesh, ('S', 'alpha_0', 'd_0', 'eta_0', 't_0', 'w_0'), '5f769fe6206023c3'),
    'broadcast__tree__torus': (broadcast__tree__torus, ('S', 'alpha_0', 'd_0', 'eta_0', 't_0', 'w_0'), '5f769fe6206023c3'),
    'broadcast__tree__switch_switch': (broadcast__tree__switch_switch, ('S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 't_0'), 'e7610847b13ceb0c'),
    'broadcast__tree__mesh_switch': (broadcast__tree__mesh_switch, ('S', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 't_0', 'w_0'), 'e73f02538527e839'),
    'broadcast__tree__torus_switch': (broadcast__tree__torus_switch, ('S', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 't_0', 'w_0'), 'e73f02538527e839'),
    'broadcast__tree__switch_switch_switch': (broadcast__tree__switch_switch_switch, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 't_0'), '5518b8557ca8ca11'),
    'broadcast__tree__mesh_switch_switch': (broadcast__tree__mesh_switch_switch, ('S', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 't_0', 'w_0'), 'a2e13cb87cc070a0'),
    'broadcast__tree__torus_switch_switch': (broadcast__tree__torus_switch_switch, ('S', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 't_0', 'w_0'), 'a2e13cb87cc070a0'),
    'all_to_all__direct__switch': (all_to_all__direct__switch, ('S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 'q_0', 't_0'), '107312b72d128c8b'),
    'all_to_all__direct__mesh': (all_to_all__direct__mesh, ('S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 'q_0', 't_0', 'w_0'), 'daf2f4eb746cba43'),
    'all_to_all__direct__torus': (all_to_all__direct__torus, ('S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 'm_0', 'q_0', 't_0', 'w_0'), 'e8203ca7c227bd14'),
    'all_to_all__direct__switch_switch': (all_to_all__direct__switch_switch, ('S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'q_0', 'q_1', 't_0'), 'e735732ec1140194'),
    'all_to_all__direct__mesh_switch': (all_to_all__direct__mesh_switch, ('S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'q_0', 'q_1', 't_0', 'w_0'), '136f6108d3ee7318'),
    'all_to_all__direct__torus_switch': (all_to_all__direct__torus_switch, ('S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'm_0', 'q_0', 'q_1', 't_0', 'w_0'), '783956a44976616d'),
    'all_to_all__direct__switch_switch_switch': (all_to_all__direct__switch_switch_switch, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'q_0', 'q_1', 'q_2', 't_0'), '75bfcd53dd415671'),
    'all_to_all__direct__mesh_switch_switch': (all_to_all__direct__mesh_switch_switch, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'q_0', 'q_1', 'q_2', 't_0', 'w_0'), '163ac0fd32181f83'),
    'all_to_all__direct__torus_switch_switch': (all_to_all__direct__torus_switch_switch, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'm_0', 'q_0', 'q_1', 'q_2', 't_0', 'w_0'), '8eaa53547b69e4ab'),
    'all_to_all__pairwise__switch': (all_to_all__pairwise__switch, ('S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 'q_0', 't_0'), '77adacc8fee1c850'),
    'all_to_all__pairwise__mesh': (all_to_all__pairwise__mesh, ('S', 'alpha_0', 'd_0', 'eta_0', 'q_0', 't_0', 'w_0'), '0f9b917e2f004c8d'),
    'all_to_all__pairwise__torus': (all_to_all__pairwise__torus, ('S', 'alpha_0', 'd_0', 'eta_0', 'q_0', 't_0', 'w_0'), '0f9b917e2f004c8d'),
    'all_to_all__pairwise__switch_switch': (all_to_all__pairwise__switch_switch, ('S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'q_0', 'q_1', 't_0'), '7e6ee2e9fd02e3a0'),
    'all_to_all__pairwise__mesh_switch': (all_to_all__pairwise__mesh_switch, ('S', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'q_0', 'q_1', 't_0', 'w_0'), '4053322a0e8b1786'),
    'all_to_all__pairwise__torus_switch': (all_to_all__pairwise__torus_switch, ('S', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'q_0', 'q_1', 't_0', 'w_0'), '4053322a0e8b1786'),
    'all_to_all__pairwise__switch_switch_switch': (all_to_all__pairwise__switch_switch_switch, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'q_0', 'q_1', 'q_2', 't_0'), '580932d622128659'),
    'all_to_all__pairwise__mesh_switch_switch': (all_to_all__pairwise__mesh_switch_switch, ('S', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'q_0', 'q_1', 'q_2', 't_0', 'w_0'), '7411acfbdbcf2600'),
    'all_to_all__pairwise__torus_switch_switch': (all_to_all__pairwise__torus_switch_switch, ('S', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'q_0', 'q_1', 'q_2', 't_0', 'w_0'), '7411acfbdbcf2600'),
    'all_to_all__hierarchical__switch': (all_to_all__hierarchical__switch, ('S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 'q_0', 't_0'), '107312b72d128c8b'),
    'all_to_all__hierarchical__mesh': (all_to_all__hierarchical__mesh, ('S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 'q_0', 't_0', 'w_0'), 'daf2f4eb746cba43'),
    'all_to_all__hierarchical__torus': (all_to_all__hierarchical__torus, ('S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 'm_0', 'q_0', 't_0', 'w_0'), 'e8203ca7c227bd14'),
    'all_to_all__hierarchical__switch_switch': (all_to_all__hierarchical__switch_switch, ('S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'q_0', 'q_1', 't_0'), 'a1a4bf7edc8befce'),
    'all_to_all__hierarchical__mesh_switch': (all_to_all__hierarchical__mesh_switch, ('S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'q_0', 'q_1', 't_0', 'w_0'), '0afbdbf7fdaed8da'),
    'all_to_all__hierarchical__torus_switch': (all_to_all__hierarchical__torus_switch, ('S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'm_0', 'q_0', 'q_1', 't_0', 'w_0'), '287d1903e1b178db'),
    'all_to_all__hierarchical__switch_switch_switch': (all_to_all__hierarchical__switch_switch_switch, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'q_0', 'q_1', 'q_2', 't_0'), '33f229d06687b95f'),
    'all_to_all__hierarchical__mesh_switch_switch': (all_to_all__hierarchical__mesh_switch_switch, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'q_0', 'q_1', 'q_2', 't_0', 'w_0'), 'b9eb66e4b52d578e'),
    'all_to_all__hierarchical__torus_switch_switch': (all_to_all__hierarchical__torus_switch_switch, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'm_0', 'q_0', 'q_1', 'q_2', 't_0', 'w_0'), '0001ee9276895167'),
    'all_to_all__deepep_low_latency__switch': (all_to_all__deepep_low_latency__switch, ('S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 't_0'), 'e970c7de916a5282'),
    'all_to_all__deepep_low_latency__mesh': (all_to_all__deepep_low_latency__mesh, ('S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 't_0', 'w_0'), '907a5508babcdd1c'),
    'all_to_all__deepep_low_latency__torus': (all_to_all__deepep_low_latency__torus, ('S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 'm_0', 't_0', 'w_0'), 'd48a385ad0f5b785'),
    'all_to_all__deepep_low_latency__switch_switch': (all_to_all__deepep_low_latency__switch_switch, ('S', 'W_0', 'W_1', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 't_0'), '8d6c6f1b0c548b7a'),
    'all_to_all__deepep_low_latency__mesh_switch': (all_to_all__deepep_low_latency__mesh_switch, ('S', 'W_0', 'W_1', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 't_0', 'w_0'), 'b4d836d686cffdc9'),
    'all_to_all__deepep_low_latency__torus_switch': (all_to_all__deepep_low_latency__torus_switch, ('S', 'W_0', 'W_1', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'm_0', 't_0', 'w_0'), '9b2b6cd386fc5a07'),
    'all_to_all__deepep_low_latency__switch_switch_switch': (all_to_all__deepep_low_latency__switch_switch_switch, ('S', 'W_0', 'W_1', 'W_2', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 't_0'), '1bcb69a9ba311d26'),
    'all_to_all__deepep_low_latency__mesh_switch_switch': (all_to_all__deepep_low_latency__mesh_switch_switch, ('S', 'W_0', 'W_1', 'W_2', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 't_0', 'w_0'), 'e4d62ba4248ce684'),
    'all_to_all__deepep_low_latency__torus_switch_switch': (all_to_all__deepep_low_latency__torus_switch_switch, ('S', 'W_0', 'W_1', 'W_2', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'm_0', 't_0', 'w_0'), 'f212cde8324aff45'),
    'all_to_all__deepep_normal__switch': (all_to_all__deepep_normal__switch, ('S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 'moe_k', 'moe_nodes', 't_0'), '4f1e40794f235ed7'),
    'all_to_all__deepep_normal__mesh': (all_to_all__deepep_normal__mesh, ('S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 'moe_k', 'moe_nodes', 't_0', 'w_0'), '31a0220230bd967f'),
    'all_to_all__deepep_normal__torus': (all_to_all__deepep_normal__torus, ('S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 'm_0', 'moe_k', 'moe_nodes', 't_0', 'w_0'), 'b5f7052b00c4ab38'),
    'all_to_all__deepep_normal__switch_switch': (all_to_all__deepep_normal__switch_switch, ('S', 'W_0', 'W_1', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'moe_k', 'moe_nodes', 't_0'), '8b50e123b9b0f99c'),
    'all_to_all__deepep_normal__mesh_switch': (all_to_all__deepep_normal__mesh_switch, ('S', 'W_0', 'W_1', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'moe_k', 'moe_nodes', 't_0', 'w_0'), '46ee8cfc5cfeab26'),
    'all_to_all__deepep_normal__torus_switch': (all_to_all__deepep_normal__torus_switch, ('S', 'W_0', 'W_1', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'm_0', 'moe_k', 'moe_nodes', 't_0', 'w_0'), 'e2b51985108011c8'),
    'all_to_all__deepep_normal__switch_switch_switch': (all_to_all__deepep_normal__switch_switch_switch, ('S', 'W_0', 'W_2', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_2', 'moe_k', 'moe_nodes', 't_0'), '4c6c78ed98384296'),
    'all_to_all__deepep_normal__mesh_switch_switch': (all_to_all__deepep_normal__mesh_switch_switch, ('S', 'W_0', 'W_2', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_2', 'moe_k', 'moe_nodes', 't_0', 'w_0'), '976c0f8a68af3228'),
    'all_to_all__deepep_normal__torus_switch_switch': (all_to_all__deepep_normal__torus_switch_switch, ('S', 'W_0', 'W_2', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_2', 'm_0', 'moe_k', 'moe_nodes', 't_0', 'w_0'), 'b95ab6934f79f6c7'),
    'send_recv__direct__switch': (send_recv__direct__switch, ('S', 'W_0', 'alpha_0', 'eta_0', 'q_0', 't_0'), '1fbbfe1bc00a863e'),
    'send_recv__direct__mesh': (send_recv__direct__mesh, ('S', 'alpha_0', 'eta_0', 'q_0', 't_0', 'w_0'), '35b71deea48838e5'),
    'send_recv__direct__torus': (send_recv__direct__torus, ('S', 'alpha_0', 'eta_0', 'q_0', 't_0', 'w_0'), '35b71deea48838e5'),
    'send_recv__direct__switch_switch': (send_recv__direct__switch_switch, ('S', 'W_1', 'alpha_1', 'eta_1', 'q_1', 't_0'), 'ac6e016ec265d441'),
    'send_recv__direct__mesh_switch': (send_recv__direct__mesh_switch, ('S', 'W_1', 'alpha_1', 'eta_1', 'q_1', 't_0'), 'ac6e016ec265d441'),
    'send_recv__direct__torus_switch': (send_recv__direct__torus_switch, ('S', 'W_1', 'alpha_1', 'eta_1', 'q_1', 't_0'), 'ac6e016ec265d441'),
    'send_recv__direct__switch_switch_switch': (send_recv__direct__switch_switch_switch, ('S', 'W_2', 'alpha_2', 'eta_2', 'q_2', 't_0'), '30db4efce948e87c'),
    'send_recv__direct__mesh_switch_switch': (send_recv__direct__mesh_switch_switch, ('S', 'W_2', 'alpha_2', 'eta_2', 'q_2', 't_0'), '30db4efce948e87c'),
    'send_recv__direct__torus_switch_switch': (send_recv__direct__torus_switch_switch, ('S', 'W_2', 'alpha_2', 'eta_2', 'q_2', 't_0'), '30db4efce948e87c'),
    'send_recv__rdma_write__switch': (send_recv__rdma_write__switch, ('S', 'W_0', 'alpha_0', 'eta_0', 'n_nic', 't_0'), '8ee47ff34b1ba2c4'),
    'send_recv__rdma_write__mesh': (send_recv__rdma_write__mesh, ('S', 'W_0', 'alpha_0', 'd_0', 'eta_0', 'n_nic', 't_0', 'w_0'), '15f4875b6f08cac8'),
    'send_recv__rdma_write__torus': (send_recv__rdma_write__torus, ('S', 'W_0', 'alpha_0', 'eta_0', 'm_0', 'n_nic', 't_0', 'w_0'), '2fff2b9b7d5d697f'),
    'send_recv__rdma_write__switch_switch': (send_recv__rdma_write__switch_switch, ('S', 'W_1', 'alpha_1', 'eta_1', 'n_nic', 't_0'), 'fd7af424c855a817'),
    'send_recv__rdma_write__mesh_switch': (send_recv__rdma_write__mesh_switch, ('S', 'W_1', 'alpha_1', 'eta_1', 'n_nic', 't_0'), 'fd7af424c855a817'),
    'send_recv__rdma_write__torus_switch': (send_recv__rdma_write__torus_switch, ('S', 'W_1', 'alpha_1', 'eta_1', 'n_nic', 't_0'), 'fd7af424c855a817'),
    'send_recv__rdma_write__switch_switch_switch': (send_recv__rdma_write__switch_switch_switch, ('S', 'W_2', 'alpha_2', 'eta_2', 'n_nic', 't_0'), '3212e02ce30ff610'),
    'send_recv__rdma_write__mesh_switch_switch': (send_recv__rdma_write__mesh_switch_switch, ('S', 'W_2', 'alpha_2', 'eta_2', 'n_nic', 't_0'), '3212e02ce30ff610'),
    'send_recv__rdma_write__torus_switch_switch': (send_recv__rdma_write__torus_switch_switch, ('S', 'W_2', 'alpha_2', 'eta_2', 'n_nic', 't_0'), '3212e02ce30ff610'),
    'all_to_all__direct__switch_rail': (all_to_all__direct__switch_rail, ('S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'q_0', 'q_1', 't_0'), '390ef6a3ff1d5984'),
    'all_to_all__direct__mesh_rail': (all_to_all__direct__mesh_rail, ('S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'q_0', 'q_1', 't_0', 'w_0'), 'cf04284259768fc9'),
    'all_to_all__direct__torus_rail': (all_to_all__direct__torus_rail, ('S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'm_0', 'q_0', 'q_1', 't_0', 'w_0'), '2d81e6a4f9193a36'),
    'all_to_all__direct__switch_rail_rail': (all_to_all__direct__switch_rail_rail, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'q_0', 'q_1', 'q_2', 't_0'), '81509c726b7582cb'),
    'all_to_all__direct__mesh_rail_rail': (all_to_all__direct__mesh_rail_rail, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'q_0', 'q_1', 'q_2', 't_0', 'w_0'), '8e64ce096951b6df'),
    'all_to_all__direct__torus_rail_rail': (all_to_all__direct__torus_rail_rail, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'm_0', 'q_0', 'q_1', 'q_2', 't_0', 'w_0'), '07f30cc75ccbb253'),
    'all_to_all__pairwise__switch_rail': (all_to_all__pairwise__switch_rail, ('S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'q_0', 'q_1', 't_0'), 'dc6d7b21dc08c12c'),
    'all_to_all__pairwise__mesh_rail': (all_to_all__pairwise__mesh_rail, ('S', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'q_0', 'q_1', 't_0', 'w_0'), 'c5224e0b6c531545'),
    'all_to_all__pairwise__torus_rail': (all_to_all__pairwise__torus_rail, ('S', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'q_0', 'q_1', 't_0', 'w_0'), 'c5224e0b6c531545'),
    'all_to_all__pairwise__switch_rail_rail': (all_to_all__pairwise__switch_rail_rail, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'q_0', 'q_1', 'q_2', 't_0'), 'f63714f74a4c5ced'),
    'all_to_all__pairwise__mesh_rail_rail': (all_to_all__pairwise__mesh_rail_rail, ('S', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'q_0', 'q_1', 'q_2', 't_0', 'w_0'), '3195e0d351f61543'),
    'all_to_all__pairwise__torus_rail_rail': (all_to_all__pairwise__torus_rail_rail, ('S', 'W_1', 'W_2', 'alpha_0', 'alpha_1', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'q_0', 'q_1', 'q_2', 't_0', 'w_0'), '3195e0d351f61543'),
    'all_to_all__deepep_low_latency__switch_rail': (all_to_all__deepep_low_latency__switch_rail, ('S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 't_0'), '91cf7afe1a06d075'),
    'all_to_all__deepep_low_latency__mesh_rail': (all_to_all__deepep_low_latency__mesh_rail, ('S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 't_0', 'w_0'), 'ef310c204c23f2e1'),
    'all_to_all__deepep_low_latency__torus_rail': (all_to_all__deepep_low_latency__torus_rail, ('S', 'W_0', 'W_1', 'alpha_0', 'alpha_1', 'd_0', 'd_1', 'eta_0', 'eta_1', 'm_0', 't_0', 'w_0'), 'a448433ea85cec00'),
    'all_to_all__deepep_low_latency__switch_rail_rail': (all_to_all__deepep_low_latency__switch_rail_rail, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 't_0'), '1a78f541f3b11613'),
    'all_to_all__deepep_low_latency__mesh_rail_rail': (all_to_all__deepep_low_latency__mesh_rail_rail, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 't_0', 'w_0'), 'f55cfc659354dd83'),
    'all_to_all__deepep_low_latency__torus_rail_rail': (all_to_all__deepep_low_latency__torus_rail_rail, ('S', 'W_0', 'W_1', 'W_2', 'alpha_0', 'alpha_2', 'd_0', 'd_1', 'd_2', 'eta_0', 'eta_1', 'eta_2', 'm_0', 't_0', 'w_0'), '7b713cea49582a2c'),
}
