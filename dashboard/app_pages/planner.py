import streamlit as st

st.title("Planner")
